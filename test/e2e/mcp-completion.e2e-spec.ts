import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { parseMaybe, type Json } from '../support/mcp-peers.js';

const ACCEPT = 'application/json, text/event-stream';
const MODERN = '2026-07-28';

/** `completion/complete` in either era, over plain HTTP. */
async function complete(
  t: TestServer,
  token: string,
  era: 'modern' | 'legacy',
  ref: Json,
  argument: { name: string; value: string },
): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: ACCEPT,
    authorization: `Bearer ${(t.tokens as Record<string, string>)[token] ?? token}`,
  };
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const params = era === 'modern' ? { ref, argument, _meta: meta } : { ref, argument };
  if (era === 'modern') {
    headers['mcp-protocol-version'] = MODERN;
    headers['mcp-method'] = 'completion/complete';
  } else {
    headers['mcp-protocol-version'] = '2025-11-25';
  }
  const res = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'completion/complete', params }),
  });
  return { status: res.status, body: parseMaybe(await res.text()) };
}

const PORTAL_USER = { type: 'ref/resource', uri: 'platform://portal-users/{id}' };
const ACCOUNT = { type: 'ref/resource', uri: 'platform://accounts/{id}' };
const ONBOARD = { type: 'ref/prompt', name: 'onboard_portal_user' };

describe('completion/complete: record ids by name prefix, inside the caller’s organisation', () => {
  let t: TestServer;
  let ids: Record<string, string>;

  beforeAll(async () => {
    t = await startTestServer();
    const users: Json = await (await t.request('/v1/portal-users', { token: 'owner' })).json();
    const accounts: Json = await (await t.request('/v1/accounts', { token: 'owner' })).json();
    ids = Object.fromEntries(
      [...users.data, ...accounts.data].map((r: Json) => [String(r.name), String(r.id)]),
    );
  });
  afterAll(async () => t?.close());

  it('is advertised in both eras', async () => {
    const legacy: Json = await (
      await t.request('/mcp', {
        method: 'POST',
        token: 'owner',
        headers: { accept: ACCEPT },
        json: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x' } },
        },
      })
    ).json();
    expect(legacy.result.capabilities.completions).toEqual({});
    const modern: Json = await (
      await t.request('/mcp', {
        method: 'POST',
        token: 'owner',
        headers: {
          accept: ACCEPT,
          'mcp-protocol-version': MODERN,
          'mcp-method': 'server/discover',
        },
        json: {
          jsonrpc: '2.0',
          id: 1,
          method: 'server/discover',
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': MODERN,
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        },
      })
    ).json();
    expect(modern.result.capabilities.completions).toEqual({});
  });

  it.each(['modern', 'legacy'] as const)(
    '%s: a name prefix (any case) completes to the ids of the matching portal users',
    async (era) => {
      const res = await complete(t, 'owner', era, PORTAL_USER, { name: 'id', value: 'an' });
      expect(res.status).toBe(200);
      expect(res.body.result.completion).toEqual({
        values: [ids['Ana Souza']],
        total: 1,
        hasMore: false,
      });
      // 2026-07-28 results say resultType; 2025 results keep their revision's shape.
      expect(res.body.result.resultType).toBe(era === 'modern' ? 'complete' : undefined);
    },
  );

  it('matches a portal user’s e-mail prefix too, and an empty value offers the newest records', async () => {
    const byEmail = await complete(t, 'owner', 'modern', PORTAL_USER, {
      name: 'id',
      value: 'bruno@',
    });
    expect(byEmail.body.result.completion.values).toEqual([ids['Bruno Lima']]);
    const all = await complete(t, 'owner', 'modern', PORTAL_USER, { name: 'id', value: '' });
    expect(all.body.result.completion.values).toHaveLength(4);
    expect(all.body.result.completion.values).toEqual(
      expect.arrayContaining([
        ids['Ana Souza'],
        ids['Bruno Lima'],
        ids['Carla Mendes'],
        ids['Diego Rocha'],
      ]),
    );
  });

  it('completes account ids for the account template and for onboard_portal_user’s account_id', async () => {
    const template = await complete(t, 'owner', 'modern', ACCOUNT, { name: 'id', value: 'umb' });
    expect(template.body.result.completion.values).toEqual([ids['Umbrella Corp']]);
    const prompt = await complete(t, 'owner', 'legacy', ONBOARD, {
      name: 'account_id',
      value: 'Ini',
    });
    expect(prompt.body.result.completion.values).toEqual([ids.Initech]);
  });

  it('never offers another organisation’s records', async () => {
    const acme = await complete(t, 'owner', 'modern', ACCOUNT, { name: 'id', value: 'Glob' });
    expect(acme.body.result.completion.values).toEqual([]);
    const globex = await complete(t, 'globex_owner', 'modern', ACCOUNT, { name: 'id', value: '' });
    expect(globex.body.result.completion.values).toHaveLength(1);
    expect(globex.body.result.completion.values).not.toContain(ids.Initech);
  });

  it('free-text arguments complete to nothing; unknown prompts, templates and arguments are -32602', async () => {
    const email = await complete(t, 'owner', 'modern', ONBOARD, { name: 'email', value: 'a' });
    expect(email.body.result.completion).toEqual({ values: [], total: 0, hasMore: false });
    for (const [ref, name] of [
      [{ type: 'ref/prompt', name: 'nope' }, 'x'],
      [{ type: 'ref/resource', uri: 'platform://nope/{id}' }, 'id'],
      [ONBOARD, 'bogus'],
      [{ type: 'ref/other' }, 'id'],
    ] as const) {
      const res = await complete(t, 'owner', 'modern', ref, { name, value: '' });
      expect(res.body.error.code, JSON.stringify(ref)).toBe(-32602);
    }
  });

  it('refuses what the token or the person cannot list (-31403 with the envelope), before any query', async () => {
    const created: Json = await (
      await t.request('/v1/tokens', {
        method: 'POST',
        token: 'owner',
        json: { name: 'portal users only', scopes: ['portal_users:read'] },
      })
    ).json();
    const scoped = created.secret;
    expect(typeof scoped).toBe('string');
    const refused = await complete(t, scoped, 'modern', ACCOUNT, { name: 'id', value: '' });
    expect(refused.body.error).toMatchObject({
      code: -31403,
      data: { error: { code: 'insufficient_scope' } },
    });
    const allowed = await complete(t, scoped, 'modern', PORTAL_USER, { name: 'id', value: 'an' });
    expect(allowed.body.result.completion.values).toEqual([ids['Ana Souza']]);
    const inactive = await complete(t, 'inactive_member', 'legacy', PORTAL_USER, {
      name: 'id',
      value: '',
    });
    expect(inactive.body.error).toMatchObject({
      code: -31403,
      data: { error: { code: 'membership_inactive' } },
    });
  });
});
