import { AsyncLocalStorage } from 'node:async_hooks';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { ClsService } from 'nestjs-cls';
import { DataSource } from 'typeorm';
import { testPrincipal } from '@app/testing';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { RequestContext, type Principal } from '@app/identity';
import { MetricsService } from '@app/metrics';
import { TokenRateLimitGuard } from './rate-limit.guard.js';
import { RateLimitService } from './rate-limit.service.js';

const principal: Principal = testPrincipal({ membership: null });

class FixedCaller extends RequestContext {
  override get principal(): Principal {
    return principal;
  }
}

/** The real service (in-memory budgets: the embedded default), counting what it is asked. */
class CountingLimits extends RateLimitService {
  consumed = 0;
  override consumeToken(tokenId: string) {
    this.consumed++;
    return super.consumeToken(tokenId);
  }
}

function handler(): void {}
class Controller {}

function setup() {
  const limits = new CountingLimits(
    loadConfig({}, { rateLimitPerTokenPerMinute: 1 }),
    new DataSource({ type: 'postgres' }),
    new MetricsService(),
  );
  limits.onModuleInit();
  const guard = new TokenRateLimitGuard(
    new Reflector(),
    limits,
    new FixedCaller(new ClsService(new AsyncLocalStorage())),
  );
  const run = (headers: Record<string, string>) => {
    const raw = { headers };
    return guard.canActivate(new ExecutionContextHost([{ raw, headers }, {}], Controller, handler));
  };
  return { limits, run };
}

describe('TokenRateLimitGuard', () => {
  it('charges every request', async () => {
    const { limits, run } = setup();
    await expect(run({})).resolves.toBe(true);
    await expect(run({})).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    expect(limits.consumed).toBe(2);
  });
});
