import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '@app/errors';
import { IS_PUBLIC } from '@app/access-vocabulary';
import { InternalDispatchRegistry, RequestContext } from '@app/identity';
import { RateLimitService } from './rate-limit.service.js';

export function rateLimited(retryAfterSeconds: number): DomainError {
  return new DomainError('RATE_LIMITED', `Too many requests; retry after ${retryAfterSeconds} s`, {
    retry_after_seconds: retryAfterSeconds,
  });
}

/**
 * The per-token budget, after authentication. In-process dispatches (an MCP tool call reaching
 * its REST endpoint) were already counted on /mcp and are not counted twice.
 */
@Injectable()
export class TokenRateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limits: RateLimitService,
    private readonly context: RequestContext,
    private readonly dispatches: InternalDispatchRegistry,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [ctx.getHandler(), ctx.getClass()]))
      return true;
    const request = ctx.switchToHttp().getRequest<FastifyRequest>();
    if (this.dispatches.dispatchOf(request.raw) !== undefined) return true;
    const decision = await this.limits.consumeToken(this.context.principal.tokenId);
    if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
    return true;
  }
}
