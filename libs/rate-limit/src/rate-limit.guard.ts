import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError } from '@app/errors';
import { IS_PUBLIC } from '@app/access-vocabulary';
import { RequestContext } from '@app/identity';
import { RateLimitService } from './rate-limit.service.js';

export function rateLimited(retryAfterSeconds: number): DomainError {
  return new DomainError('RATE_LIMITED', `Too many requests; retry after ${retryAfterSeconds} s`, {
    retry_after_seconds: retryAfterSeconds,
  });
}

/**
 * The per-token budget, after authentication. An MCP tool call is charged once, on /mcp: its
 * REST endpoint runs in-process without another request (ADR 0008).
 */
@Injectable()
export class TokenRateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limits: RateLimitService,
    private readonly context: RequestContext,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [ctx.getHandler(), ctx.getClass()]))
      return true;
    const decision = await this.limits.consumeToken(this.context.principal.tokenId);
    if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
    return true;
  }
}
