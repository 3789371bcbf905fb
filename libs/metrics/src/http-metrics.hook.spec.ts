import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRestRoute, registerHttpMetrics } from './http-metrics.hook.js';
import { MetricsService } from './metrics.service.js';

describe('registerHttpMetrics', () => {
  let fastify: FastifyInstance;
  let metrics: MetricsService;

  beforeEach(async () => {
    fastify = Fastify();
    metrics = new MetricsService();
    registerHttpMetrics(fastify, metrics);
    fastify.get('/v1/portal-users/:id', () => ({ ok: true }));
    fastify.delete('/v1/portal-users/:id', async (_request, reply) => reply.code(204).send());
    fastify.post('/mcp', () => ({ jsonrpc: '2.0' }));
    fastify.get('/mcp', async (_request, reply) => reply.code(405).send());
    fastify.get('/health/ready', () => ({ status: 'ok' }));
    fastify.get('/health/live', () => ({ status: 'ok' }));
    fastify.get('/metrics', () => '');
    await fastify.ready();
  });

  afterEach(async () => {
    await fastify.close();
  });

  async function httpLines(): Promise<string[]> {
    const { body } = await metrics.render();
    return body.split('\n').filter((l) => l.startsWith('http_request'));
  }

  it('labels by method and matched route pattern, never the raw URL', async () => {
    await fastify.inject({ method: 'GET', url: '/v1/portal-users/1' });
    await fastify.inject({ method: 'GET', url: '/v1/portal-users/2' });
    await fastify.inject({ method: 'DELETE', url: '/v1/portal-users/2' });
    const lines = await httpLines();

    expect(lines).toContain('http_requests_total{route="GET /v1/portal-users/:id",status="200"} 2');
    expect(lines).toContain(
      'http_requests_total{route="DELETE /v1/portal-users/:id",status="204"} 1',
    );
    expect(lines).toContain(
      'http_request_duration_seconds_count{route="GET /v1/portal-users/:id"} 2',
    );
    expect(lines.join('\n')).not.toMatch(/portal-users\/[12]/);
  });

  it('labels requests that match no route "unmatched"', async () => {
    await fastify.inject({ method: 'GET', url: '/v1/random-1' });
    await fastify.inject({ method: 'PUT', url: '/v1/random-2' });
    const lines = await httpLines();
    expect(lines).toContain('http_requests_total{route="unmatched",status="404"} 2');
    expect(lines.join('\n')).not.toContain('random');
  });

  it('skips /mcp, /metrics and /health/*', async () => {
    await fastify.inject({ method: 'POST', url: '/mcp', payload: {} });
    await fastify.inject({ method: 'GET', url: '/mcp' });
    await fastify.inject({ method: 'GET', url: '/health/ready' });
    await fastify.inject({ method: 'GET', url: '/health/live' });
    await fastify.inject({ method: 'GET', url: '/metrics' });
    expect(
      (await httpLines()).filter((l) => !l.startsWith('http_request_duration_seconds_bucket')),
    ).toEqual([]);
  });

  it('measures the response time in seconds', async () => {
    await fastify.inject({ method: 'GET', url: '/v1/portal-users/1' });
    const sum = (await httpLines()).find((l) =>
      l.startsWith('http_request_duration_seconds_sum{route="GET /v1/portal-users/:id"}'),
    );
    const seconds = Number(sum?.slice(sum.lastIndexOf(' ') + 1));
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(1);
  });
});

describe('isRestRoute', () => {
  it.each([
    ['/v1/accounts', true],
    ['/v1/mcp/tool-calls', true],
    ['/.well-known/oauth-protected-resource/mcp', true],
    ['/mcp', false],
    ['/mcp/', false],
    ['/metrics', false],
    ['/health/ready', false],
    ['/health/live', false],
  ])('%s → %s', (pattern, expected) => {
    expect(isRestRoute(pattern)).toBe(expected);
  });
});
