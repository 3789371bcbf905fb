import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from './platform-api.fixtures.js';
import { initializeMessage } from '../support/raw-mcp.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** RFC 6750 §2.1 only: a bearer token anywhere but the Authorization header is no token at all. */
describe('bearer tokens are accepted only in the Authorization header', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t?.close());

  const INIT = initializeMessage('query-token', { clientVersion: '1' });

  it('a token in the query string is ignored: 401 UNAUTHENTICATED on REST and on /mcp', async () => {
    const owner = t.tokens.owner;
    for (const [path, init] of [
      [`/v1/me?access_token=${owner}`, {}],
      [`/v1/accounts?limit=1&access_token=${owner}`, {}],
      [`/v1/members?token=${owner}`, {}],
      [
        `/mcp?access_token=${owner}`,
        {
          method: 'POST',
          json: INIT,
          headers: { accept: 'application/json, text/event-stream' },
        },
      ],
    ] as const) {
      const r = await t.request(path, init);
      expect({ path, status: r.status }).toEqual({ path, status: 401 });
      expect(await r.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    }
  });

  it('a token in a JSON or form body is ignored: 401, nothing created', async () => {
    const json = await t.request('/v1/accounts', {
      method: 'POST',
      json: { access_token: t.tokens.owner, name: 'Body Token Ltd' },
    });
    expect(json.status).toBe(401);
    const form = await t.request('/v1/accounts', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `access_token=${t.tokens.owner}&name=Form`,
    });
    expect([401, 415]).toContain(form.status);
    const listed = await t.request('/v1/accounts?q=Body%20Token', { token: 'owner' });
    const page: Json = await listed.json();
    expect(page.data).toEqual([]);
  });

  it('with the header, a query token changes nothing (the header’s token is the caller)', async () => {
    const r = await t.request(`/v1/me?access_token=${t.tokens.globex_owner}`, { token: 'owner' });
    expect(r.status).toBe(200);
    const body: Json = await r.json();
    expect(body.organization.slug).toBe('acme');
  });
});
