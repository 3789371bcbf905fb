import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditTrail } from '@app/audit-trail';
import { TokensService } from '@app/identity';
import { RestDispatcher } from '@app/mcp-tools';
import { PORTAL_USERS_ENDPOINTS } from '@app/portal-users';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  call,
  callTool,
  findPortalUser,
  matchesSchema,
  me,
  sql,
  walk,
  type Json,
} from './platform-api.fixtures.js';

describe('REST /v1/audit-events', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t?.close());

  async function events(query = ''): Promise<Json[]> {
    const r = await call(t, 'GET', `/v1/audit-events${query}`);
    expect(r.status).toBe(200);
    return r.body.data;
  }

  it('records writes of people (api) and agents (mcp) side by side; the mcp marker comes from server state', async () => {
    const owner = await me(t);
    const principal = await t.server.app.get(TokensService).authenticate(t.tokens.owner);
    // What an MCP tool call does: the endpoint's handler in-process, as the caller /mcp verified.
    const viaMcp = await t.server.app.get(RestDispatcher).dispatch(
      {
        principal,
        channel: 'mcp',
        clientName: 'Claude Desktop',
        confirmationId: 'conf-0001',
        requestId: 'outer-request-0001',
      },
      PORTAL_USERS_ENDPOINTS.create,
      { body: { email: 'agent-made@example.com', name: 'Agent Made', send_invitation: false } },
    );
    expect(viaMcp.status).toBe(201);
    const created: Json = viaMcp.body;
    const viaApi = await call(t, 'PATCH', `/v1/portal-users/${created.id}`, {
      json: { name: 'Human Edited' },
    });
    expect(viaApi.status).toBe(200);

    const trail = await events(`?resource_id=${created.id}`);
    expect(trail.map((e) => [e.action, e.channel])).toEqual([
      ['portal_user.updated', 'api'],
      ['portal_user.created', 'mcp'],
    ]);
    expect(trail[1]).toMatchObject({
      actor_type: 'member',
      actor_user_id: owner.userId,
      token_id: owner.tokenId,
      client_name: 'Claude Desktop',
      confirmation_id: 'conf-0001',
      request_id: 'outer-request-0001',
    });
    expect(trail[0]).toMatchObject({
      actor_user_id: owner.userId,
      token_id: owner.tokenId,
      client_name: null,
      confirmation_id: null,
    });
    expect(trail[0].request_id).not.toBe('outer-request-0001');
    for (const e of trail) expect(matchesSchema('AuditEventDto', e)).toEqual([]);

    // An outside request is never an MCP one: without a token it is 401; with one, it is the api
    // channel whatever it claims (the body's channel field below).
    const headerOnly = await t.request('/v1/portal-users', {
      method: 'POST',
      json: { email: 'r@example.com', name: 'R' },
    });
    expect(headerOnly.status).toBe(401);
    const forged = await t.request('/v1/portal-users', {
      method: 'POST',
      token: 'owner',
      json: { email: 'forged@example.com', name: 'Forged', send_invitation: false },
    });
    expect(forged.status).toBe(201);
    const forgedBody: Json = await forged.json();
    const forgedId = String(forgedBody.id);
    expect((await events(`?resource_id=${forgedId}`)).map((e) => e.channel)).toEqual(['api']);
    const bodyChannel = await call(t, 'POST', '/v1/portal-users', {
      json: { email: 'c@example.com', name: 'C', channel: 'mcp' },
    });
    expect(bodyChannel.status).toBe(422);
    expect(bodyChannel.body.error.details).toEqual([
      { field: 'channel', message: 'is not allowed' },
    ]);
    expect((await events('?channel=mcp')).map((e) => e.resource_id)).toEqual([created.id]);
  });

  it('filters by actor, action, resource, channel and time range', async () => {
    const member = await me(t, 'member');
    const ana = await findPortalUser(t, 'ana@example.com');
    const t0 = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    expect(
      (
        await call(t, 'PATCH', `/v1/portal-users/${ana.id}`, {
          token: 'member',
          json: { name: 'Ana S.' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call(t, 'PATCH', `/v1/portal-users/${ana.id}`, { json: { name: 'Ana Souza' } }))
        .status,
    ).toBe(200);
    await new Promise((r) => setTimeout(r, 20));
    const t1 = new Date().toISOString();

    const byMember = await events(`?actor=${member.userId}`);
    expect(byMember).toHaveLength(1);
    expect(byMember[0]).toMatchObject({
      action: 'portal_user.updated',
      resource_id: ana.id,
      changes: { name: { before: 'Ana Souza', after: 'Ana S.' } },
    });
    expect(
      (await events('?action=portal_user.updated&resource_type=portal_user')).every(
        (e) => e.action === 'portal_user.updated',
      ),
    ).toBe(true);
    const window = await events(`?since=${t0}&until=${t1}`);
    expect(window.map((e) => e.changes.name.after)).toEqual(['Ana Souza', 'Ana S.']);
    expect(await events(`?until=${t0}&resource_id=${ana.id}`)).toEqual([]);
    expect((await events('?channel=api')).length).toBeGreaterThan(1);
  });

  it('bad filters are VALIDATION_ERRORs naming the field', async () => {
    const r = await call(
      t,
      'GET',
      '/v1/audit-events?action=portal_user.exploded&channel=email&actor=me&since=yesterday',
    );
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'actor', message: 'must be a UUID' },
        {
          field: 'action',
          message: expect.stringMatching(
            /^must be one of the following values: portal_user\.created/,
          ),
        },
        { field: 'channel', message: 'must be one of the following values: api, mcp, cli, web' },
        { field: 'since', message: 'must be an RFC 3339 date-time, e.g. 2026-01-31T09:00:00Z' },
      ]),
    );
    const order = await call(
      t,
      'GET',
      '/v1/audit-events?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z',
    );
    expect(order.status).toBe(422);
    expect(order.body.error.details).toEqual([{ field: 'until', message: 'must be after since' }]);
  });

  it('each organisation sees only its own trail', async () => {
    expect(
      (
        await call(t, 'POST', '/v1/accounts', {
          token: 'globex_owner',
          json: { name: 'Globex Only' },
        })
      ).status,
    ).toBe(201);
    const globex = (await call(t, 'GET', '/v1/audit-events', { token: 'globex_owner' })).body.data;
    expect(globex.map((e: Json) => e.action)).toEqual(['account.created']);
    expect((await events()).some((e) => e.changes.name?.after === 'Globex Only')).toBe(false);
  });

  it('pagination walks the whole trail once, newest first', async () => {
    for (let i = 0; i < 9; i++)
      await call(t, 'POST', '/v1/accounts', { json: { name: `Audit page ${i}` } });
    const [{ n }] = await sql<{ n: string }>(
      t,
      `SELECT count(*)::text AS n FROM audit_events WHERE organization_id = (SELECT id FROM organizations WHERE slug = 'acme')`,
    );
    const { rows } = await walk(t, '/v1/audit-events', 4);
    expect(rows).toHaveLength(Number(n));
    expect(new Set(rows.map((r) => r.id)).size).toBe(Number(n));
    const times = rows.map((r) => Date.parse(r.occurred_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('is append-only: the database refuses UPDATE, DELETE and TRUNCATE', async () => {
    await expect(sql(t, `UPDATE audit_events SET action = 'account.deleted'`)).rejects.toThrow(
      /append-only/,
    );
    await expect(sql(t, `DELETE FROM audit_events`)).rejects.toThrow(/append-only/);
    await expect(sql(t, `TRUNCATE audit_events`)).rejects.toThrow(/append-only/);
    expect((await events()).length).toBeGreaterThan(0);
  });

  it('needs audit:read in the token and audit.read held by the person', async () => {
    const member = await call(t, 'GET', '/v1/audit-events', { token: 'member' });
    expect(member.status).toBe(403);
    expect(member.body.error).toMatchObject({
      code: 'insufficient_permission',
      details: { permission: 'audit.read' },
    });
    const owner = await me(t);
    const narrow = await t.server.app.get(TokensService).issue({
      organizationId: owner.organizationId,
      userId: owner.userId,
      kind: 'personal',
      name: 'portal users only',
      scopes: ['portal_users:read'],
    });
    const scoped = await call(t, 'GET', '/v1/audit-events', { token: narrow.secret });
    expect(scoped.status).toBe(403);
    expect(scoped.body.error).toMatchObject({
      code: 'insufficient_scope',
      details: { required_scope: 'audit:read' },
    });
    expect((await call(t, 'GET', '/v1/audit-events', { token: 'readonly_pat' })).status).toBe(200);
    // An OAuth token (audit:read) reads them through its resource, the MCP server.
    expect((await callTool(t, 'oauth_reader', 'list_audit_events')).isError).toBe(false);
  });

  it('a confirmation’s or a request’s events read back in the order they were written, within one clock tick too', async () => {
    // Twelve rows in one statement: occurred_at (clock_timestamp(), a millisecond tick on the
    // embedded engine) ties for most of them, so only the insert order (seq) says which came first.
    const owner = await me(t);
    const confirmationId = randomUUID();
    const requestId = `written-order-${randomUUID()}`;
    const labels = Array.from({ length: 12 }, (_, i) => `step ${String(i).padStart(2, '0')}`);
    await t.server.app.get(DataSource).query(
      `INSERT INTO audit_events (organization_id, actor_type, actor_user_id, token_id, channel,
                                 action, resource_type, resource_id, resource_label, changes,
                                 request_id, confirmation_id)
       SELECT $1, 'member', $2, $3, 'mcp', 'confirmation.confirmed', 'confirmation', $4,
              'step ' || lpad(g::text, 2, '0'), '{}'::jsonb, $5, $6
         FROM generate_series(0, 11) AS g ORDER BY g`,
      [
        owner.organizationId,
        owner.userId,
        owner.tokenId,
        confirmationId,
        requestId,
        confirmationId,
      ],
    );
    const trail = t.server.app.get(AuditTrail);
    const ofConfirmation = await trail.eventsOfConfirmation(owner.organizationId, confirmationId);
    const ofRequest = await trail.eventsOfRequest(owner.organizationId, requestId);
    expect(ofConfirmation.map((e) => e.resource_label)).toEqual(labels);
    expect(ofRequest.map((e) => e.resource_label)).toEqual(labels);
  });
});
