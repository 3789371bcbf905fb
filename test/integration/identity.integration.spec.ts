import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_GRANTABLE_SCOPES, SCOPES } from '@app/access-vocabulary';
import { TokensService } from '@app/identity';
import { legacyToolCall } from '../support/raw-mcp.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { sql, type Json } from './platform-api.fixtures.js';

describe('identity and bearer authentication', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t.close());

  it('GET /v1/me answers the person, organisation, scopes and permissions for the owner token', async () => {
    const res = await t.request('/v1/me', { token: 'owner' });
    expect(res.status).toBe(200);
    const body: Json = await res.json();
    expect(body.person).toMatchObject({ email: 'olivia.owner@acme.test', name: 'Olivia Owner' });
    expect(body.organization).toMatchObject({ slug: 'acme', name: 'Acme' });
    expect(body.token.scopes).toEqual(expect.arrayContaining(['portal_users:write', 'audit:read']));
    expect(body.membership).toMatchObject({ role: 'owner', status: 'active' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('no token → 401 UNAUTHENTICATED with a Bearer challenge; garbage → 401 INVALID_TOKEN', async () => {
    const none = await t.request('/v1/me');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="/);
    expect(await none.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });

    const bad = await t.request('/v1/me', { token: 'pat_' + 'x'.repeat(40) });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(await bad.json()).toMatchObject({ error: { code: 'INVALID_TOKEN' } });
  });

  it('tokens are stored hashed: the secret appears nowhere in the database', async () => {
    const { Client } = (await import('pg')).default;
    const c = new Client({ connectionString: t.db.url });
    await c.connect();
    try {
      const rows = await c.query<{ secret_hash: string; token_prefix: string }>(
        'SELECT secret_hash, token_prefix FROM api_tokens',
      );
      const all = JSON.stringify(rows.rows);
      for (const secret of Object.values(t.tokens)) expect(all).not.toContain(secret);
      expect(rows.rows.every((r) => /^[0-9a-f]{64}$/.test(r.secret_hash))).toBe(true);
    } finally {
      await c.end();
    }
  });

  it('an expired token and a revoked token are refused; a live one works until revoked', async () => {
    const tokens = t.server.app.get(TokensService);
    const me: Json = await (await t.request('/v1/me', { token: 'owner' })).json();
    const issued = await tokens.issue({
      organizationId: me.organization.id,
      userId: me.person.id,
      kind: 'personal',
      name: 'short-lived',
      scopes: ['portal_users:read'],
      expiresAt: new Date(Date.now() + 1_500),
    });
    expect((await t.request('/v1/me', { token: issued.secret })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_600));
    expect(await (await t.request('/v1/me', { token: issued.secret })).json()).toMatchObject({
      error: { code: 'INVALID_TOKEN' },
    });

    const live = await tokens.issue({
      organizationId: me.organization.id,
      userId: me.person.id,
      kind: 'personal',
      name: 'x',
      scopes: [],
    });
    expect((await t.request('/v1/me', { token: live.secret })).status).toBe(200);
    const revoked = await t.request(`/v1/tokens/${live.token.id}`, {
      method: 'DELETE',
      token: 'owner',
    });
    expect(revoked.status).toBe(200);
    expect((await t.request('/v1/me', { token: live.secret })).status).toBe(401);
  });

  it('an OAuth token holds exactly OAUTH_GRANTABLE_SCOPES: issuance and the database CHECK both follow the one declaration', async () => {
    expect(OAUTH_GRANTABLE_SCOPES.length).toBeGreaterThan(0);
    expect(SCOPES.length).toBeGreaterThan(OAUTH_GRANTABLE_SCOPES.length);
    const tokens = t.server.app.get(TokensService);
    const me: Json = await (await t.request('/v1/me', { token: 'owner' })).json();
    const { Client } = (await import('pg')).default;
    const c = new Client({ connectionString: t.db.url });
    await c.connect();
    const issued: Record<string, boolean> = {};
    const stored: Record<string, boolean> = {};
    try {
      for (const [i, scope] of SCOPES.entries()) {
        issued[scope] = await tokens
          .issue({
            organizationId: me.organization.id,
            userId: me.person.id,
            kind: 'oauth',
            name: 'c',
            scopes: [scope],
          })
          .then(
            () => true,
            (err: unknown) => {
              expect(err).toMatchObject({ code: 'VALIDATION_ERROR' });
              return false;
            },
          );
        stored[scope] = await c
          .query(
            `INSERT INTO api_tokens (organization_id, user_id, kind, name, token_prefix, secret_hash, scopes, audience)
             VALUES ($1, $2, 'oauth', 'x', 'oat_x', $3, ARRAY[$4], $5)`,
            [me.organization.id, me.person.id, `check-${i}`, scope, t.server.config.mcpUrl],
          )
          .then(
            () => true,
            (err: unknown) => {
              expect(String(err)).toMatch(/ck_api_tokens_oauth_read_only/);
              return false;
            },
          );
      }
    } finally {
      await c.end();
    }
    const grantable = Object.fromEntries(
      SCOPES.map((s) => [s, OAUTH_GRANTABLE_SCOPES.includes(s)]),
    );
    expect(issued).toEqual(grantable);
    expect(stored).toEqual(grantable);
  });

  it('the four authorization outcomes reach REST routes with the demo tokens', async () => {
    expect(await (await t.request('/v1/me', { token: 'former_member' })).json()).toMatchObject({
      error: { code: 'key_owner_not_member' },
    });
    expect(await (await t.request('/v1/me', { token: 'inactive_member' })).json()).toMatchObject({
      error: { code: 'membership_inactive' },
    });
    expect((await t.request('/v1/me', { token: 'readonly_pat' })).status).toBe(200);
  });

  it('the seeded OAuth demo token is what a real OAuth token is: bound to the MCP URL, refused by every REST route, served by /mcp', async () => {
    for (const path of ['/v1/me', '/v1/accounts', '/v1/portal-users', '/v1/audit-events']) {
      const rest = await t.request(path, { token: 'oauth_reader' });
      expect({ path, status: rest.status }).toEqual({ path, status: 401 });
      expect(await rest.json()).toMatchObject({
        error: { code: 'INVALID_TOKEN', message: expect.stringMatching(/audience/) },
      });
    }
    const mcp = await legacyToolCall(
      t.url,
      t.tokens.oauth_reader,
      'list_accounts',
      {},
      {
        requestId: 'demo-oauth-reader',
      },
    );
    expect(mcp.status).toBe(200);
    expect(mcp.body.result.isError ?? false).toBe(false);
    const [row] = await sql<{ audience: string | null }>(
      t,
      `SELECT audience FROM api_tokens WHERE kind = 'oauth' AND name = 'Demo MCP client'`,
    );
    expect(row.audience).toBe(t.server.config.mcpUrl);
  });

  it('no OAuth token can exist without an audience: the database refuses one', async () => {
    const me: Json = await (await t.request('/v1/me', { token: 'owner' })).json();
    await expect(
      sql(
        t,
        `INSERT INTO api_tokens (organization_id, user_id, kind, name, token_prefix, secret_hash, scopes)
         VALUES ($1, $2, 'oauth', 'x', 'oat_x', 'no-audience', ARRAY['audit:read'])`,
        [me.organization.id, me.person.id],
      ),
    ).rejects.toThrow(/ck_api_tokens_oauth_audience/);
  });

  it('health: live and ready answer 200', async () => {
    expect((await t.request('/health/live')).status).toBe(200);
    expect((await t.request('/health/ready')).status).toBe(200);
  });
});
