import Fastify from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import type { TransportRejectionReason } from '@app/metrics';
import {
  evaluateTransport,
  isLoopbackHost,
  normaliseOrigin,
  registerMcpTransportSecurity,
  transportPolicyOf,
} from './mcp-transport-security.hook.js';
import { registerMcpRejectionMetrics } from './mcp-rejection.metrics.js';

const loopback = transportPolicyOf({
  host: '127.0.0.1',
  mcpAllowedOrigins: ['https://app.example.com'],
});
const everywhere = transportPolicyOf({
  host: '0.0.0.0',
  mcpAllowedOrigins: ['https://App.Example.com:443'],
});

describe('evaluateTransport', () => {
  it('allows a request without Origin (non-browser clients)', () => {
    expect(evaluateTransport(loopback, undefined, '127.0.0.1:3000')).toEqual({ allowed: true });
    expect(evaluateTransport(everywhere, undefined, 'mcp.example.com')).toEqual({ allowed: true });
  });

  it('allows listed origins, compared after normalisation', () => {
    expect(evaluateTransport(everywhere, 'https://app.example.com', 'mcp.example.com')).toEqual({
      allowed: true,
    });
    expect(evaluateTransport(loopback, 'HTTPS://APP.EXAMPLE.COM', 'localhost:3000')).toEqual({
      allowed: true,
    });
  });

  it('refuses any other origin with ORIGIN_NOT_ALLOWED, including "null" and near misses', () => {
    for (const origin of [
      'https://evil.example.com',
      'null',
      'http://app.example.com',
      'https://app.example.com.evil.test',
      'garbage',
    ]) {
      expect(evaluateTransport(everywhere, origin, 'mcp.example.com')).toMatchObject({
        allowed: false,
        code: 'ORIGIN_NOT_ALLOWED',
        reason: 'origin_not_allowed',
      });
    }
  });

  it('an empty allowlist allows no browser origin when not bound to loopback, not even localhost', () => {
    const none = transportPolicyOf({ host: '0.0.0.0', mcpAllowedOrigins: [] });
    expect(evaluateTransport(none, 'http://localhost:3000', 'mcp.example.com')).toMatchObject({
      allowed: false,
    });
  });

  it('bound to loopback, an empty allowlist allows no browser origin either, loopback ones included', () => {
    const none = transportPolicyOf({ host: 'localhost', mcpAllowedOrigins: [] });
    for (const origin of [
      'http://localhost:8080',
      'http://localhost:5173',
      'http://127.0.0.1:40123',
      'http://[::1]:8080',
      'https://localhost',
      'http://evil.example.com',
    ]) {
      expect(evaluateTransport(none, origin, 'localhost:3000')).toMatchObject({
        allowed: false,
        code: 'ORIGIN_NOT_ALLOWED',
      });
    }
    const listed = transportPolicyOf({
      host: 'localhost',
      mcpAllowedOrigins: ['http://127.0.0.1:40123'],
    });
    expect(evaluateTransport(listed, 'http://127.0.0.1:40123', '127.0.0.1:40123')).toEqual({
      allowed: true,
    });
    expect(evaluateTransport(listed, 'http://127.0.0.1:40124', '127.0.0.1:40123')).toMatchObject({
      allowed: false,
    });
  });

  it('bound to loopback: a Host that is not loopback is refused first (DNS rebinding)', () => {
    expect(
      evaluateTransport(loopback, 'http://evil.example.com', 'evil.example.com'),
    ).toMatchObject({
      allowed: false,
      code: 'HOST_NOT_ALLOWED',
      reason: 'host_not_allowed',
    });
    expect(evaluateTransport(loopback, undefined, undefined)).toMatchObject({
      code: 'HOST_NOT_ALLOWED',
    });
  });

  it('bound elsewhere: Host is not checked', () => {
    expect(evaluateTransport(everywhere, undefined, 'evil.example.com')).toEqual({ allowed: true });
  });

  it('knows which binds are loopback', () => {
    for (const host of ['127.0.0.1', '::1', 'localhost', 'LOCALHOST']) {
      expect(transportPolicyOf({ host, mcpAllowedOrigins: [] }).loopbackBound).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.5']) {
      expect(transportPolicyOf({ host, mcpAllowedOrigins: [] }).loopbackBound).toBe(false);
    }
  });
});

describe('isLoopbackHost / normaliseOrigin', () => {
  it.each([
    ['localhost', true],
    ['localhost:3000', true],
    ['127.0.0.1:1', true],
    ['[::1]:8080', true],
    ['[::1]', true],
    ['LocalHost:3000', true],
    ['evil.example.com', false],
    ['localhost.evil.example.com', false],
    ['127.0.0.1.nip.io', false],
    ['127.0.0.1:3000:4', false],
    ['', false],
  ])('Host %s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });

  it('normalises scheme/host case and default ports, rejects non-http origins', () => {
    expect(normaliseOrigin('HTTPS://App.Example.com:443')).toBe('https://app.example.com');
    expect(normaliseOrigin('http://localhost:80')).toBe('http://localhost');
    expect(normaliseOrigin('null')).toBeUndefined();
    expect(normaliseOrigin('file:///etc')).toBeUndefined();
  });
});

async function app() {
  const fastify = Fastify();
  const metrics = { recordTransportRejection: vi.fn<(reason: TransportRejectionReason) => void>() };
  registerMcpTransportSecurity(fastify, { host: '127.0.0.1', mcpAllowedOrigins: [] });
  registerMcpRejectionMetrics(fastify, metrics);
  fastify.post('/mcp', async () => ({ ok: true }));
  fastify.post('/v1/things', async () => ({ ok: true }));
  await fastify.ready();
  return { fastify, metrics };
}

describe('registerMcpTransportSecurity', () => {
  it('answers a refused /mcp request with 403 and the envelope, and counts it', async () => {
    const { fastify, metrics } = await app();
    const res = await fastify.inject({
      method: 'POST',
      url: '/mcp?x=1',
      headers: { host: 'evil.example.com', origin: 'http://evil.example.com' },
      payload: {},
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.json()).toEqual({
      error: { code: 'HOST_NOT_ALLOWED', message: expect.any(String) },
    });
    expect(metrics.recordTransportRejection).toHaveBeenCalledTimes(1);
    expect(metrics.recordTransportRejection).toHaveBeenCalledWith('host_not_allowed');

    const origin = await fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { host: '127.0.0.1:3000', origin: 'https://evil.example.com' },
      payload: {},
    });
    expect(origin.statusCode).toBe(403);
    expect(origin.json()).toMatchObject({ error: { code: 'ORIGIN_NOT_ALLOWED' } });
    expect(metrics.recordTransportRejection).toHaveBeenLastCalledWith('origin_not_allowed');
    await fastify.close();
  });

  it('bound to loopback, checks Host on every route (Origin only on /mcp); counts only /mcp', async () => {
    const { fastify, metrics } = await app();
    const ok = await fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { host: 'localhost:3000' },
      payload: {},
    });
    expect(ok.statusCode).toBe(200);
    const rebound = await fastify.inject({
      method: 'POST',
      url: '/v1/things',
      headers: { host: 'evil.example.com' },
      payload: {},
    });
    expect(rebound.statusCode).toBe(403);
    expect(rebound.json()).toMatchObject({ error: { code: 'HOST_NOT_ALLOWED' } });
    const local = await fastify.inject({
      method: 'POST',
      url: '/v1/things',
      headers: { host: '127.0.0.1:3000', origin: 'https://app.example.com' },
      payload: {},
    });
    expect(local.statusCode).toBe(200);
    expect(metrics.recordTransportRejection).not.toHaveBeenCalled();
    await fastify.close();
  });

  it('bound elsewhere, leaves Host to the ingress on every route', async () => {
    const fastify = Fastify();
    registerMcpTransportSecurity(fastify, { host: '0.0.0.0', mcpAllowedOrigins: [] });
    fastify.post('/v1/things', async () => ({ ok: true }));
    fastify.post('/mcp', async () => ({ ok: true }));
    await fastify.ready();
    for (const url of ['/v1/things', '/mcp']) {
      const r = await fastify.inject({
        method: 'POST',
        url,
        headers: { host: 'mcp.example.com' },
        payload: {},
      });
      expect(r.statusCode).toBe(200);
    }
    await fastify.close();
  });
});
