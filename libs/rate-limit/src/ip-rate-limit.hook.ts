import type { FastifyReply, FastifyRequest } from 'fastify';
import { rateLimited } from './rate-limit.guard.js';
import type { RateLimitService } from './rate-limit.service.js';

const EXEMPT = /^\/(health\/|metrics(\?|$)|\.well-known\/)/;

/**
 * The per-client-IP budget, checked before authentication (and before the body is read), so
 * token guessing and floods are refused cheaply. The server adds it ahead of every other
 * `onRequest` hook (see `createFastifyAdapter`), so routes answered by middleware, such as the
 * OAuth server's, are charged too. `onRejected` lets metrics count the refusal.
 */
export function ipRateLimitHook(
  limits: RateLimitService,
  onRejected: (path: string) => void = () => undefined,
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (request, reply) => {
    if (EXEMPT.test(request.url)) return;
    const decision = await limits.consumeIp(request.ip);
    if (decision.allowed) return;
    onRejected(request.url.split('?', 1)[0] ?? '');
    const body = rateLimited(decision.retryAfterSeconds).toEnvelope();
    await reply
      .status(429)
      .header('retry-after', String(decision.retryAfterSeconds))
      .header('content-type', 'application/json')
      .send(body);
  };
}
