import Fastify from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { AppConfig } from '@app/config';
import type { TransportRejectionReason } from '@app/metrics';
import { normalisedPath } from './mcp-request.js';
import { evaluateRequest, gatePolicyOf, normaliseOrigin, requestGate } from './request-gate.js';
import { registerMcpRejectionMetrics } from './mcp-rejection.metrics.js';

function config(overrides: Partial<AppConfig>): AppConfig {
  return Object.assign(new AppConfig(), { port: 3000 }, overrides);
}

const loopback = gatePolicyOf(config({ mcpAllowedOrigins: ['https://app.example.com'] }));
const everywhere = gatePolicyOf(
  config({
    host: '0.0.0.0',
    publicBaseUrl: 'https://mcp.example.com',
    mcpAllowedOrigins: ['https://App.Example.com:443'],
  }),
);

function verdict(
  policy: typeof loopback,
  origin: string | undefined,
  host: string | undefined,
  target = '/mcp',
  method = 'POST',
) {
  return evaluateRequest(policy, { method, target, host, origin });
}

describe('evaluateRequest: Origin on /mcp', () => {
  it('allows a request without Origin (non-browser clients)', () => {
    expect(verdict(loopback, undefined, '127.0.0.1:3000')).toEqual({ kind: 'pass' });
    expect(verdict(everywhere, undefined, 'mcp.example.com')).toEqual({ kind: 'pass' });
  });

  it('allows listed origins, compared after normalisation', () => {
    expect(verdict(everywhere, 'https://app.example.com', 'mcp.example.com')).toEqual({
      kind: 'pass',
    });
    expect(verdict(loopback, 'HTTPS://APP.EXAMPLE.COM', '127.0.0.1:3000')).toEqual({
      kind: 'pass',
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
      expect(verdict(everywhere, origin, 'mcp.example.com')).toMatchObject({
        kind: 'refuse',
        code: 'ORIGIN_NOT_ALLOWED',
        reason: 'origin_not_allowed',
      });
    }
  });

  it('an empty allowlist allows no browser origin, loopback ones included', () => {
    for (const host of ['0.0.0.0', 'localhost']) {
      const none = gatePolicyOf(config({ host, mcpAllowedOrigins: [] }));
      for (const origin of [
        'http://localhost:8080',
        'http://127.0.0.1:40123',
        'http://[::1]:8080',
        'http://evil.example.com',
      ]) {
        expect(verdict(none, origin, 'localhost:3000')).toMatchObject({
          code: 'ORIGIN_NOT_ALLOWED',
        });
      }
    }
  });

  it('applies to every spelling of /mcp that some decoder could take for it', () => {
    for (const target of [
      '/mcp',
      '/mcp?x=1',
      '/%6dcp',
      '/%6Dcp',
      '/%256dcp',
      '/%25256dcp',
      '//mcp',
      '/mcp/',
      '/MCP',
      '/Mcp',
      '/mcp;x=1',
      '/./mcp',
      '/x/../mcp',
      '/%2fmcp',
      '/%2e/mcp',
      '\\mcp',
      '/mcp#frag',
      '/mcp/anything',
      'http://127.0.0.1:3000/mcp',
      'http://127.0.0.1:3000/%6dcp',
    ]) {
      expect(
        verdict(loopback, 'https://evil.example.com', '127.0.0.1:3000', target),
        target,
      ).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
    }
  });

  it('does not apply to other routes (they have their own CSRF and CORS rules)', () => {
    for (const target of ['/v1/me', '/oauth/token', '/mcpx', '/v1/mcp/tool-calls', '/signin']) {
      expect(verdict(loopback, 'https://evil.example.com', '127.0.0.1:3000', target)).toEqual({
        kind: 'pass',
      });
    }
  });
});

describe('evaluateRequest: Host on a loopback-bound server', () => {
  it('refuses a Host that is not a loopback name nor the base URL (DNS rebinding), before Origin', () => {
    for (const host of [
      'evil.example.com',
      'evil.example.com:3000',
      'localhost.evil.example.com',
      '127.0.0.1.nip.io',
      '127.0.0.1:3000:4',
      'evil@127.0.0.1:3000',
      '127.0.0.1/x',
      'loc%61lhost',
      '[::2]:3000',
      '[::ffff:7f00:1]:3000',
      '10.0.0.1',
      '',
      undefined,
    ]) {
      expect(verdict(loopback, 'https://evil.example.com', host), String(host)).toMatchObject({
        kind: 'refuse',
        code: 'HOST_NOT_ALLOWED',
        reason: 'host_not_allowed',
      });
    }
  });

  it('takes the host of an absolute-form target over Host (RFC 9112 §3.2.2)', () => {
    expect(
      verdict(loopback, undefined, '127.0.0.1:3000', 'http://evil.example/oauth/jwks', 'GET'),
    ).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
    expect(verdict(loopback, undefined, '127.0.0.1:3000', 'http://127.0.0.1:3000/v1/me')).toEqual({
      kind: 'pass',
    });
  });

  it('passes the base URL host with any port (replicas share one public URL), and a trailing root dot', () => {
    for (const host of [
      '127.0.0.1:3000',
      '127.0.0.1:40123',
      '127.0.0.1',
      '127.0.0.1.:3000',
      '127.1:3000',
    ]) {
      expect(verdict(loopback, undefined, host, '/v1/me', 'GET'), host).toEqual({ kind: 'pass' });
    }
  });

  it('redirects GET and HEAD for another loopback name to the base URL, refuses the rest naming it', () => {
    for (const host of [
      'localhost:3000',
      'LOCALHOST:3000',
      'localhost.:3000',
      '[::1]:3000',
      '[0:0:0:0:0:0:0:1]:3000',
    ]) {
      expect(verdict(loopback, undefined, host, '/admin/?tab=tokens', 'GET'), host).toEqual({
        kind: 'redirect',
        location: 'http://127.0.0.1:3000/admin/?tab=tokens',
        message: expect.stringContaining('http://127.0.0.1:3000'),
      });
      expect(verdict(loopback, undefined, host, '/admin/', 'HEAD')).toMatchObject({
        kind: 'redirect',
      });
      expect(verdict(loopback, undefined, host, '/mcp', 'POST')).toMatchObject({
        kind: 'refuse',
        code: 'HOST_NOT_ALLOWED',
        message: expect.stringContaining('http://127.0.0.1:3000/mcp'),
      });
    }
  });

  it('with a public base URL that is not loopback (a proxy on this machine), passes loopback names and that host', () => {
    const proxied = gatePolicyOf(config({ publicBaseUrl: 'https://mcp.example.com' }));
    for (const host of ['localhost:3000', '127.0.0.1:3000', 'mcp.example.com', 'MCP.example.com.'])
      expect(verdict(proxied, undefined, host, '/v1/me', 'GET'), host).toEqual({ kind: 'pass' });
    expect(verdict(proxied, undefined, 'evil.example', '/v1/me', 'GET')).toMatchObject({
      code: 'HOST_NOT_ALLOWED',
      message: expect.stringContaining('https://mcp.example.com'),
    });
  });

  it('bound elsewhere: Host is the ingress business', () => {
    expect(verdict(everywhere, undefined, 'evil.example.com')).toEqual({ kind: 'pass' });
    expect(verdict(everywhere, undefined, 'localhost:3000', '/admin/', 'GET')).toEqual({
      kind: 'pass',
    });
  });

  it('knows which binds are loopback', () => {
    for (const host of ['127.0.0.1', '::1', 'localhost', 'LOCALHOST'])
      expect(gatePolicyOf(config({ host })).loopbackBound, host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5'])
      expect(gatePolicyOf(config({ host })).loopbackBound, host).toBe(false);
  });
});

describe('normalisedPath / normaliseOrigin', () => {
  it.each([
    ['/mcp', '/mcp'],
    ['/v1/portal-users/abc?q=1', '/v1/portal-users/abc'],
    ['/%6fauth//token/', '/oauth/token'],
    ['/a/b/../../mcp', '/mcp'],
    ['/../../mcp', '/mcp'],
    ['/', '/'],
  ])('%s → %s', (raw, expected) => {
    expect(normalisedPath(raw)).toBe(expected);
  });

  it('normalises scheme/host case and default ports, rejects non-http origins', () => {
    expect(normaliseOrigin('HTTPS://App.Example.com:443')).toBe('https://app.example.com');
    expect(normaliseOrigin('http://localhost:80')).toBe('http://localhost');
    expect(normaliseOrigin('null')).toBeUndefined();
    expect(normaliseOrigin('file:///etc')).toBeUndefined();
  });
});

async function app(overrides: Partial<AppConfig> = {}) {
  const fastify = Fastify();
  const metrics = { recordTransportRejection: vi.fn<(reason: TransportRejectionReason) => void>() };
  fastify.addHook('onRequest', requestGate(config(overrides)));
  registerMcpRejectionMetrics(fastify, metrics);
  fastify.post('/mcp', async () => ({ ok: true }));
  fastify.post('/v1/things', async () => ({ ok: true }));
  fastify.get('/admin/', async () => ({ ok: true }));
  await fastify.ready();
  return { fastify, metrics };
}

describe('requestGate', () => {
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
      url: '/%6dcp',
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
      headers: { host: '127.0.0.1:3000' },
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

  it('redirects a page asked for under another loopback name to the base URL', async () => {
    const { fastify } = await app();
    const res = await fastify.inject({
      method: 'GET',
      url: '/admin/?x=1',
      headers: { host: 'localhost:3000' },
    });
    expect(res.statusCode).toBe(308);
    expect(res.headers.location).toBe('http://127.0.0.1:3000/admin/?x=1');
    expect(res.json()).toMatchObject({ error: { code: 'HOST_NOT_ALLOWED' } });
    await fastify.close();
  });

  it('bound elsewhere, leaves Host to the ingress on every route', async () => {
    const { fastify } = await app({ host: '0.0.0.0' });
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
