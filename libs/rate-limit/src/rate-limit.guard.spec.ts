import { AsyncLocalStorage } from 'node:async_hooks';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { ClsService } from 'nestjs-cls';
import { DataSource } from 'typeorm';
import { testPrincipal } from '@app/testing';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import {
  INTERNAL_DISPATCH_HEADER,
  InternalDispatchRegistry,
  RequestContext,
  type Principal,
} from '@app/identity';
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
  const dispatches = new InternalDispatchRegistry();
  const guard = new TokenRateLimitGuard(
    new Reflector(),
    limits,
    new FixedCaller(new ClsService(new AsyncLocalStorage())),
    dispatches,
  );
  const run = (headers: Record<string, string>) => {
    const raw = { headers };
    return guard.canActivate(new ExecutionContextHost([{ raw, headers }, {}], Controller, handler));
  };
  return { limits, dispatches, run };
}

describe('TokenRateLimitGuard and the in-process dispatch', () => {
  it('does not charge a tool call’s in-process dispatch (the /mcp request was charged)', async () => {
    const { limits, dispatches, run } = setup();
    const handle = dispatches.issue({
      caller: { principal, channel: 'mcp', clientName: null, confirmationId: null, requestId: 'r' },
    });
    await expect(run({ [INTERNAL_DISPATCH_HEADER]: handle })).resolves.toBe(true);
    expect(limits.consumed).toBe(0);
  });

  it('charges an outside request even when it sends the dispatch header', async () => {
    const { limits, run } = setup();
    await expect(run({ [INTERNAL_DISPATCH_HEADER]: 'made-up' })).resolves.toBe(true);
    await expect(run({ [INTERNAL_DISPATCH_HEADER]: 'made-up-2' })).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    expect(limits.consumed).toBe(2);
  });
});
