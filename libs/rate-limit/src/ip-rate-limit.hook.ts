import type { FastifyInstance } from 'fastify';
import { INTERNAL_DISPATCH_HEADER, type InternalDispatchRegistry } from '@app/identity';
import { rateLimited } from './rate-limit.guard.js';
import type { RateLimitService } from './rate-limit.service.js';

const EXEMPT = /^\/(health\/|metrics(\?|$)|\.well-known\/)/;

/**
 * The per-client-IP budget, checked before authentication (and before the body is read), so
 * token guessing and floods are refused cheaply. `onRejected` lets metrics count the refusal.
 */
export function registerIpRateLimit(
  fastify: FastifyInstance,
  limits: RateLimitService,
  dispatches: InternalDispatchRegistry,
  onRejected: (path: string) => void = () => undefined,
): void {
  fastify.addHook('onRequest', async (request, reply) => {
    if (EXEMPT.test(request.url)) return;
    // Only a handle this process issued exempts a request (a tool call's in-process dispatch,
    // already counted on /mcp); any other value of the header is charged like everything else.
    const handle = request.headers[INTERNAL_DISPATCH_HEADER];
    if (typeof handle === 'string' && dispatches.has(handle)) return;
    const decision = await limits.consumeIp(request.ip);
    if (decision.allowed) return;
    onRejected(request.url.split('?', 1)[0] ?? '');
    const body = rateLimited(decision.retryAfterSeconds).toEnvelope();
    await reply
      .status(429)
      .header('retry-after', String(decision.retryAfterSeconds))
      .header('content-type', 'application/json')
      .send(body);
  });
}
