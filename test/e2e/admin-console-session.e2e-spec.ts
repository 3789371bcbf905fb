import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyToolCall, resultJson } from '../support/raw-mcp.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import type { BrowserAgent } from '../support/browser-agent.js';
import { consoleHeaders, signedInAgent } from '../support/console-sign-in.js';
import type { Json } from '../support/mcp-peers.js';

/**
 * The REST API accepts the person's browser session for same-origin requests from the admin
 * console only (CSRF header, same origin), with the same four authorization outcomes as a token;
 * bearer tokens keep working for everything else.
 */

let t: TestServer;
let owner: BrowserAgent;
let ownerHeaders: Record<string, string>;

beforeAll(async () => {
  t = await startTestServer({ logLevel: 'error' });
  owner = await signedInAgent(t, 'olivia.owner@acme.test');
  ownerHeaders = await consoleHeaders(owner);
});
afterAll(async () => t?.close());

async function get(
  browser: BrowserAgent,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: Json }> {
  const res = await browser.fetch(path, { headers });
  return { status: res.status, body: await res.json() };
}

describe('the console session on the REST API', () => {
  it('reads the history as the signed-in person, in the organisation the console names', async () => {
    const res = await get(owner, '/v1/mcp/tool-calls', ownerHeaders);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.data)).toBe(true);
    const me = await get(owner, '/v1/me', ownerHeaders);
    expect(me.body).toMatchObject({
      person: { email: 'olivia.owner@acme.test' },
      organization: { slug: 'acme' },
      token: { kind: 'session', scopes: ['audit:read', 'org:admin'], client_name: 'Admin console' },
    });
  });

  it('is no session at all without the CSRF header: the cookie alone is a 401', async () => {
    const res = await get(owner, '/v1/mcp/tool-calls', {});
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
  });

  it('refuses a wrong CSRF token and another origin', async () => {
    const wrong = await get(owner, '/v1/mcp/tool-calls', {
      ...ownerHeaders,
      'x-csrf-token': 'forged',
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe('FORBIDDEN');
    const foreign: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'http://evil.test' },
    ];
    for (const extra of foreign) {
      const res = await get(owner, '/v1/mcp/tool-calls', { ...ownerHeaders, ...extra });
      expect(res.status).toBe(403);
    }
  });

  it('reaches only what the console needs: no platform data routes', async () => {
    const res = await get(owner, '/v1/portal-users', ownerHeaders);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });

  it('keeps the four outcomes: a member without audit.read is insufficient_permission', async () => {
    const member = await signedInAgent(t, 'max.member@acme.test');
    const res = await get(member, '/v1/mcp/tool-calls', await consoleHeaders(member));
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({
      code: 'insufficient_permission',
      details: { permission: 'audit.read' },
    });
  });

  it('is key_owner_not_member for an organisation the person is not in', async () => {
    const globex: Json = await (await t.request('/v1/me', { token: 'globex_owner' })).json();
    const res = await get(owner, '/v1/mcp/tool-calls', {
      ...ownerHeaders,
      'x-organization-id': String(globex.organization.id),
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('key_owner_not_member');
  });

  it('revokes a token (admin), audited as the person through the console; the token is dead at once', async () => {
    // The demo OAuth token, alive on its resource (/mcp) until the console revokes it.
    const context = () =>
      legacyToolCall(
        t.url,
        t.tokens.oauth_reader,
        'get_current_context',
        {},
        {
          requestId: randomUUID(),
        },
      );
    const before = await context();
    expect(before.status).toBe(200);
    const reader: Json = resultJson(before.body);
    const revoked = await owner.fetch(`/v1/tokens/${String(reader.token.id)}`, {
      method: 'DELETE',
      headers: ownerHeaders,
    });
    expect(revoked.status).toBe(200);
    expect((await context()).status).toBe(401);

    const audit: Json = await (
      await t.request(
        `/v1/audit-events?action=token.revoked&resource_id=${String(reader.token.id)}`,
        {
          token: 'owner',
        },
      )
    ).json();
    expect(audit.data[0]).toMatchObject({
      channel: 'api',
      client_name: 'Admin console',
      actor_user_id: expect.any(String),
    });
  });

  it('ends with sign-out: the same headers are then a 401', async () => {
    const browser = await signedInAgent(t, 'olivia.owner@acme.test');
    const headers = await consoleHeaders(browser);
    expect((await get(browser, '/v1/mcp/tool-calls', headers)).status).toBe(200);
    const out = await browser.fetch('/signout', { method: 'POST', headers });
    expect(out.status).toBe(303);
    const after = await get(browser, '/v1/mcp/tool-calls', headers);
    expect(after.status).toBe(401);
  });

  it('leaves bearer tokens as they were', async () => {
    const res = await t.request('/v1/mcp/tool-calls', { token: 'owner' });
    expect(res.status).toBe(200);
  });
});
