import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMetrics, sampleKey } from '../support/raw-mcp.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

describe('rate limits (shared Postgres store)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ rateLimitPerTokenPerMinute: 3, rateLimitPerIpPerMinute: 6 });
  });
  afterAll(async () => t.close());

  it('per token: the budget runs out with 429, Retry-After and the RATE_LIMITED envelope', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await t.request('/v1/me', { token: 'owner' })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const res = await t.request('/v1/me', { token: 'owner' });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.json()).toMatchObject({
      error: { code: 'RATE_LIMITED', details: { retry_after_seconds: expect.any(Number) } },
    });
    // Another token has its own budget (until the per-IP budget runs out).
    expect((await t.request('/v1/me', { token: 'member' })).status).toBe(200);
  });

  it('per IP: refused before authentication once the address has spent its budget', async () => {
    const res = await t.request('/v1/me');
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expect((await t.request('/health/ready')).status).toBe(200);
  });
});

describe('the per-IP budget on public routes', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ rateLimitPerIpPerMinute: 3 });
  });
  afterAll(async () => t.close());

  it('an unauthenticated request to a public route spends the per-IP budget', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.request('/v1/portal-invitations/not-a-real-token/accept', {
        method: 'POST',
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(3)).toEqual([429, 429]);
  });
});

describe('the per-IP budget on routes answered by middleware', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ rateLimitPerIpPerMinute: 3 });
  });
  afterAll(async () => t.close());

  // The OAuth server is mounted as middleware, which runs in a hook of its own; the budget must
  // come first or client registration and the token endpoint go unlimited.
  it('client registration spends the budget; then the OAuth endpoints answer 429 too', async () => {
    const register = (): Promise<Response> =>
      t.request('/oauth/register', {
        method: 'POST',
        json: { redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' },
      });
    const spent: number[] = [];
    for (let i = 0; i < 3; i++) spent.push((await register()).status);
    expect(spent).toEqual([201, 201, 201]);
    const after = [
      await register(),
      await t.request('/oauth/token', { method: 'POST' }),
      await t.request('/oauth/authorize'),
      await t.request('/v1/me', { token: 'owner' }),
    ];
    expect(after.map((r) => r.status)).toEqual([429, 429, 429, 429]);
    expect(after[1]?.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('a request without a token', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t.close());

  it('is authenticated, answered and counted in the HTTP metrics like any outside request', async () => {
    const key = sampleKey('http_requests_total', { route: 'GET /v1/me', status: '401' });
    const counted = async () =>
      parseMetrics(await (await t.request('/metrics')).text()).get(key) ?? 0;
    const before = await counted();
    const res = await t.request('/v1/me');
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    expect(await counted()).toBe(before + 1);
    // With a bearer token it is that token's request (channel api), nothing more.
    const withToken = await t.request('/v1/me', { token: 'member' });
    expect(withToken.status).toBe(200);
  });
});
