import Fastify from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import type { TransportRejectionReason } from '@app/metrics';
import {
  noteTransportRejection,
  registerMcpRejectionMetrics,
  rejectionReasonOf,
} from './mcp-rejection.metrics.js';

describe('rejectionReasonOf', () => {
  it.each([
    ['POST', 401, 'Bearer resource_metadata="x"', undefined, 'unauthenticated'],
    [
      'POST',
      401,
      'Bearer error="invalid_token", resource_metadata="x"',
      undefined,
      'invalid_token',
    ],
    ['POST', 403, undefined, 'host_not_allowed', 'host_not_allowed'],
    ['GET', 405, undefined, undefined, 'optional_method'],
    ['DELETE', 405, undefined, undefined, 'optional_method'],
    ['PUT', 405, undefined, undefined, 'method_not_allowed'],
    ['POST', 406, undefined, undefined, 'not_acceptable'],
    ['POST', 413, undefined, undefined, 'body_too_large'],
    ['POST', 415, undefined, undefined, 'unsupported_media_type'],
    ['POST', 429, undefined, undefined, 'rate_limited'],
    ['POST', 200, undefined, undefined, undefined],
    ['POST', 202, undefined, undefined, undefined],
    ['POST', 400, undefined, undefined, undefined],
    ['POST', 503, undefined, undefined, undefined],
  ] as const)('%s answered %i → %s', (method, status, challenge, noted, expected) => {
    expect(rejectionReasonOf(method, status, challenge, noted)).toBe(expected);
  });
});

describe('registerMcpRejectionMetrics', () => {
  it('counts each /mcp refusal once, by the status sent; other paths and answers never', async () => {
    const fastify = Fastify();
    const record = vi.fn<(reason: TransportRejectionReason) => void>();
    registerMcpRejectionMetrics(fastify, { recordTransportRejection: record });
    fastify.post('/mcp', async (request, reply) => {
      if (request.headers['x-case'] === 'origin') {
        noteTransportRejection(request, 'origin_not_allowed');
        return reply.status(403).send({});
      }
      if (request.headers['x-case'] === 'token')
        return reply
          .status(401)
          .header('www-authenticate', 'Bearer error="invalid_token"')
          .send({});
      if (request.headers['x-case'] === 'limited') return reply.status(429).send({});
      return { ok: true };
    });
    fastify.get('/mcp', async (_request, reply) => reply.status(405).send({}));
    fastify.get('/v1/things', async (_request, reply) => reply.status(429).send({}));
    await fastify.ready();

    for (const x of ['origin', 'token', 'limited', 'none'])
      await fastify.inject({ method: 'POST', url: '/mcp?a=1', headers: { 'x-case': x } });
    await fastify.inject({ method: 'GET', url: '/mcp' });
    await fastify.inject({ method: 'GET', url: '/v1/things' });

    expect(record.mock.calls).toEqual([
      ['origin_not_allowed'],
      ['invalid_token'],
      ['rate_limited'],
      ['optional_method'],
    ]);
    await fastify.close();
  });
});
