import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJsonObject } from '@app/common';
import { MCP_PATH } from '@app/config';
import { routeTable } from '../../apps/server/src/app.setup.js';
import { rawHttp, type RawHttpResponse } from '../support/raw-http.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * The request gate, route by route: every route of the running server (Fastify's route table as
 * registered, plus every endpoint the OAuth server's metadata advertises, which are answered by
 * mounted middleware and are not in that table), with every method it has and HEAD and OPTIONS,
 * is asked with a rebinding Host, an absolute-form target naming another host, an encoded
 * spelling of its path, and a foreign Origin. Nothing here is a hand-picked list of routes: a
 * route added tomorrow is walked too.
 */

interface Route {
  method: string;
  path: string;
}

const FOREIGN_ORIGIN = 'https://evil.example';

/** A concrete path for a route pattern (`:id` → a UUID, a wildcard → a segment). */
function concrete(pattern: string): string {
  return pattern.replace(/:[A-Za-z_]+/g, () => randomUUID()).replace(/\*\w*/g, 'x');
}

/** Every letter of the path's first segment percent-encoded: `/%6d%63%70`. */
function encoded(path: string): string {
  return path.replace(
    /^\/([^/]*)/,
    (_, first: string) => `/${first.replace(/[a-z]/gi, (c) => `%${c.charCodeAt(0).toString(16)}`)}`,
  );
}

function codeOf(res: RawHttpResponse): string | undefined {
  try {
    const body: unknown = JSON.parse(res.body);
    if (typeof body === 'object' && body !== null && 'error' in body) {
      const { error } = body;
      if (typeof error === 'object' && error !== null && 'code' in error) return String(error.code);
    }
  } catch {
    return undefined;
  }
  return undefined;
}

describe('the request gate covers every route, mounted middleware included', () => {
  let t: TestServer;
  let port: string;
  let routes: Route[];

  beforeAll(async () => {
    t = await startTestServer();
    port = new URL(t.url).port;
    const fromFastify = routeTable(t.server.app).map((r) => ({ method: r.method, path: r.url }));
    const metadata: unknown = await (
      await fetch(`${t.url}/.well-known/oauth-authorization-server`)
    ).json();
    if (!isJsonObject(metadata)) throw new Error('no authorization server metadata');
    const mounted: Route[] = [];
    for (const [key, value] of Object.entries(metadata)) {
      if (!(key.endsWith('_endpoint') || key === 'jwks_uri') || typeof value !== 'string') continue;
      if (!value.startsWith(`${t.url}/`)) continue;
      const path = value.slice(t.url.length);
      for (const method of ['GET', 'POST']) mounted.push({ method, path });
    }
    routes = [...fromFastify, ...mounted];
    const seen = new Set<string>();
    for (const r of routes.slice()) {
      for (const method of ['HEAD', 'OPTIONS']) {
        const key = `${method} ${r.path}`;
        if (seen.has(key)) continue;
        seen.add(key);
        routes.push({ method, path: r.path });
      }
    }
  }, 120_000);
  afterAll(async () => t?.close());

  it('walks the REST API, the console, /mcp and the OAuth server', () => {
    const paths = new Set(routes.map((r) => r.path));
    for (const path of [
      MCP_PATH,
      '/v1/me',
      '/signin',
      '/oauth/token',
      '/oauth/register',
      '/oauth/jwks',
    ])
      expect([...paths], path).toContain(path);
    expect(routes.length).toBeGreaterThan(60);
  });

  it('a Host that is not this server is refused on every route, whatever the method or spelling of the path', async () => {
    const misses: string[] = [];
    const hosts = ['evil.example', `127.0.0.1.evil.example:${port}`, `[::2]:${port}`];
    for (const route of routes) {
      const path = concrete(route.path);
      const asked: [target: string, headers: Record<string, string>][] = [
        ...hosts.map((host): [string, Record<string, string>] => [path, { host }]),
        [encoded(path), { host: 'evil.example' }],
        [`http://evil.example${path}`, { host: `127.0.0.1:${port}` }],
      ];
      for (const [target, headers] of asked) {
        const res = await rawHttp(t.url, route.method, target, headers);
        const ok =
          res.status === 403 && (route.method === 'HEAD' || codeOf(res) === 'HOST_NOT_ALLOWED');
        if (!ok)
          misses.push(
            `${route.method} ${target} Host ${headers.host}: ${res.status} ${res.body.slice(0, 80)}`,
          );
      }
    }
    expect(misses).toEqual([]);
  }, 300_000);

  it('a foreign Origin is refused on /mcp under every spelling of its path, and changes nothing elsewhere', async () => {
    const misses: string[] = [];
    for (const route of routes) {
      const path = concrete(route.path);
      const isMcp = route.path === MCP_PATH;
      for (const target of [path, encoded(path)]) {
        const plain = await rawHttp(t.url, route.method, target);
        const res = await rawHttp(t.url, route.method, target, { origin: FOREIGN_ORIGIN });
        const refused =
          res.status === 403 &&
          (route.method === 'HEAD' ? plain.status !== 403 : codeOf(res) === 'ORIGIN_NOT_ALLOWED');
        const ok = isMcp ? refused : res.status === plain.status;
        if (!ok)
          misses.push(
            `${route.method} ${target}: ${plain.status} without Origin, ${res.status} with`,
          );
      }
    }
    for (const target of [
      '/%256dcp',
      '//mcp',
      '/mcp/',
      '/MCP',
      '/mcp;x=1',
      '/x/../mcp',
      '/%2fmcp',
      `http://127.0.0.1:${port}/mcp`,
    ]) {
      const res = await rawHttp(
        t.url,
        'POST',
        target,
        {
          origin: FOREIGN_ORIGIN,
          'content-type': 'application/json',
        },
        '{}',
      );
      if (codeOf(res) !== 'ORIGIN_NOT_ALLOWED') misses.push(`POST ${target}: ${res.status}`);
    }
    expect(misses).toEqual([]);
  }, 300_000);

  it('one host name: another loopback name of this server is redirected (GET, HEAD) or refused naming the base URL', async () => {
    const misses: string[] = [];
    for (const host of [`localhost:${port}`, `[::1]:${port}`, `LOCALHOST.:${port}`]) {
      for (const route of routes) {
        const path = concrete(route.path);
        const res = await rawHttp(t.url, route.method, `${path}?a=1`, { host });
        const expected =
          route.method === 'GET' || route.method === 'HEAD'
            ? res.status === 308 && res.headers.location === `${t.url}${path}?a=1`
            : res.status === 403 &&
              codeOf(res) === 'HOST_NOT_ALLOWED' &&
              res.body.includes(`${t.url}${path}`);
        if (!expected)
          misses.push(
            `${route.method} ${path} Host ${host}: ${res.status} ${String(res.headers.location)}`,
          );
      }
    }
    expect(misses).toEqual([]);
  }, 300_000);
});

describe('every URL the OAuth server builds starts with the public base URL', () => {
  let t: TestServer;
  const base = 'https://mcp.example.test';

  beforeAll(async () => {
    t = await startTestServer({ publicBaseUrl: base });
  }, 120_000);
  afterAll(async () => t?.close());

  it('its metadata names endpoints under the base URL, whatever Host or spelling of the path asked', async () => {
    for (const [target, host] of [
      ['/.well-known/oauth-authorization-server', `127.0.0.1:${new URL(t.url).port}`],
      ['/.well-known/openid-configuration', `localhost:${new URL(t.url).port}`],
      ['/.well-known/oauth-authorization-server', 'mcp.example.test'],
    ]) {
      const res = await rawHttp(t.url, 'GET', target, { host });
      expect(res.status, target).toBe(200);
      const metadata: unknown = JSON.parse(res.body);
      if (!isJsonObject(metadata)) throw new Error(`${target}: not a JSON object`);
      expect(metadata.issuer).toBe(base);
      const urls = Object.entries(metadata).filter(
        ([k, v]) => (k.endsWith('_endpoint') || k === 'jwks_uri') && typeof v === 'string',
      );
      expect(urls.length).toBeGreaterThan(3);
      for (const [key, url] of urls)
        expect(url, `${host} ${key}`).toMatch(new RegExp(`^${base}/oauth/`));
    }
  });
});
