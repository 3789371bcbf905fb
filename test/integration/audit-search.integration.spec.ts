import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coverHistory, partitionIndexParents } from '../support/history-partitions.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  call,
  invitationTokenFor,
  matchesSchema,
  me,
  sql,
  type Json,
} from './platform-api.fixtures.js';

/**
 * Audit events read without a second lookup: who (name, e-mail), with which token (name, kind)
 * and on what (a human label), as they were when the event was recorded; `?q=` finds them by
 * those words, a deleted portal user's history included.
 */
describe('audit events in words, and ?q= search', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t?.close());

  async function events(query: string, token = 'owner'): Promise<Json[]> {
    const r = await call(t, 'GET', `/v1/audit-events${query}`, { token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data;
  }

  it('each event names the actor, the token and the resource', async () => {
    const owner = await me(t);
    const created = await call(t, 'POST', '/v1/portal-users', {
      json: { email: 'paula.label@example.com', name: 'Paula Label', send_invitation: false },
    });
    const account = await call(t, 'POST', '/v1/accounts', { json: { name: 'Label Industries' } });
    const token = await call(t, 'POST', '/v1/tokens', {
      json: { name: 'nightly export', scopes: ['audit:read'] },
    });
    const member = await me(t, 'member');
    const promoted = await call(t, 'PATCH', `/v1/members/${member.userId}`, {
      json: { role: 'admin' },
    });
    expect([created.status, account.status, token.status, promoted.status]).toEqual([
      201, 201, 201, 200,
    ]);

    const [pu] = await events(`?resource_id=${created.body.id}`);
    expect(pu).toMatchObject({
      action: 'portal_user.created',
      actor_user_id: owner.userId,
      actor_name: 'Olivia Owner',
      actor_email: 'olivia.owner@acme.test',
      token_id: owner.tokenId,
      token_name: 'Owner (all scopes)',
      token_kind: 'personal',
      resource_label: 'paula.label@example.com',
    });
    expect(matchesSchema('AuditEventDto', pu)).toEqual([]);
    expect((await events(`?resource_id=${account.body.id}`))[0].resource_label).toBe(
      'Label Industries',
    );
    expect((await events(`?resource_id=${token.body.id}`))[0].resource_label).toBe(
      'nightly export',
    );
    expect((await events(`?resource_id=${member.userId}`))[0].resource_label).toBe(
      'max.member@acme.test',
    );
  });

  it('a portal user accepting their invitation is named as the actor', async () => {
    const created = await call(t, 'POST', '/v1/portal-users', {
      json: { email: 'quinn.accepts@example.com', name: 'Quinn Accepts' },
    });
    const secret = await invitationTokenFor(t, 'quinn.accepts@example.com');
    await t.request(`/v1/portal-invitations/${secret}/accept`, { method: 'POST' });
    const [accepted] = await events(
      `?resource_id=${created.body.id}&action=portal_user.invitation_accepted`,
    );
    expect(accepted).toMatchObject({
      actor_type: 'portal_user',
      actor_user_id: null,
      actor_name: 'Quinn Accepts',
      actor_email: 'quinn.accepts@example.com',
      token_id: null,
      token_name: null,
      token_kind: null,
      resource_label: 'quinn.accepts@example.com',
    });
  });

  it('names stay as they were when people and records change or go', async () => {
    const created = await call(t, 'POST', '/v1/portal-users', {
      json: { email: 'rita.before@example.com', name: 'Rita', send_invitation: false },
    });
    const id: string = created.body.id;
    await call(t, 'PATCH', `/v1/portal-users/${id}`, {
      json: { email: 'rita.after@example.com' },
    });
    const owner = await me(t);
    await sql(t, `UPDATE users SET name = 'Olivia Renamed' WHERE id = $1`, [owner.userId]);
    try {
      const trail = await events(`?resource_id=${id}`);
      expect(trail.map((e) => [e.action, e.resource_label, e.actor_name])).toEqual([
        ['portal_user.updated', 'rita.after@example.com', 'Olivia Owner'],
        ['portal_user.created', 'rita.before@example.com', 'Olivia Owner'],
      ]);
    } finally {
      await sql(t, `UPDATE users SET name = 'Olivia Owner' WHERE id = $1`, [owner.userId]);
    }
  });

  it('a deleted portal user’s whole history is found by the e-mail it had', async () => {
    const created = await call(t, 'POST', '/v1/portal-users', {
      json: { email: 'sven.gone@example.com', name: 'Sven Gone', send_invitation: false },
    });
    const id: string = created.body.id;
    await call(t, 'PATCH', `/v1/portal-users/${id}`, { json: { name: 'Sven G.' } });
    const deleted = await call(t, 'DELETE', `/v1/portal-users/${id}`);
    expect(deleted.status).toBe(200);
    expect((await call(t, 'GET', `/v1/portal-users/${id}`)).status).toBe(404);

    const history = await events('?q=sven.gone@example.com');
    expect(history.map((e) => [e.action, e.resource_id])).toEqual([
      ['portal_user.deleted', id],
      ['portal_user.updated', id],
      ['portal_user.created', id],
    ]);
    // Any case, any part of it; combined with the other filters.
    expect((await events('?q=SVEN.GONE')).length).toBe(3);
    expect((await events('?q=sven.gone&action=portal_user.deleted')).map((e) => e.action)).toEqual([
      'portal_user.deleted',
    ]);
    expect(await events('?q=sven.gone&channel=mcp')).toEqual([]);
  });

  it('q matches the actor’s name and the token’s name too; LIKE wildcards are plain text', async () => {
    await call(t, 'POST', '/v1/accounts', {
      token: 'member',
      json: { name: 'Made By Max' },
    });
    const byMax = await events('?q=Max Member');
    expect(byMax.length).toBeGreaterThan(0);
    expect(byMax.every((e) => e.actor_name === 'Max Member')).toBe(true);
    const byToken = await events('?q=no delete permission');
    expect(byToken.length).toBeGreaterThan(0);
    expect(byToken.every((e) => e.token_name.includes('no delete permission'))).toBe(true);
    expect(await events('?q=%25')).toEqual([]);
    expect(await events('?q=_')).toEqual([]);
  });

  it('another organisation’s events are never found, whatever q says', async () => {
    await call(t, 'POST', '/v1/portal-users', {
      token: 'globex_owner',
      json: { email: 'globex.secret@example.com', name: 'Globex Secret', send_invitation: false },
    });
    expect(await events('?q=globex.secret')).toEqual([]);
    expect((await events('?q=globex.secret', 'globex_owner')).length).toBe(1);
  });

  it('a bad q is a VALIDATION_ERROR naming q', async () => {
    for (const q of ['', 'x'.repeat(201), 'a%00b']) {
      const r = await call(t, 'GET', `/v1/audit-events?q=${q}`);
      expect(r.status, q).toBe(422);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(r.body.error.details)).toContain('"q"');
    }
  });

  it('q is served by the trigram index, not a scan of the organisation’s trail', async () => {
    const org = randomUUID();
    await sql(t, `INSERT INTO organizations (id, slug, name) VALUES ($1, $2, 'Plans')`, [
      org,
      `plans-${org.slice(0, 8)}`,
    ]);
    await coverHistory(t.db.url, '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z');
    await sql(
      t,
      `INSERT INTO audit_events (organization_id, actor_type, actor_user_id, token_id, channel, action,
                                 resource_type, resource_id, actor_name, actor_email, token_name,
                                 token_kind, resource_label, occurred_at)
       SELECT $1::uuid, 'member', gen_random_uuid(), gen_random_uuid(), 'api', 'portal_user.created',
              'portal_user', gen_random_uuid(), 'Person ' || i, 'person' || i || '@example.com',
              'token ' || (i % 7), 'personal', 'user' || i || '@customers.example',
              timestamptz '2026-01-01T00:00:00Z' + i * interval '1 second'
         FROM generate_series(1, 20000) AS i`,
      [org],
    );
    // What autovacuum does after a bulk of inserts (it also merges the GIN index's pending list).
    await sql(t, 'VACUUM ANALYZE audit_events');
    const [plan] = await sql<{ 'QUERY PLAN': Json }>(
      t,
      `EXPLAIN (FORMAT JSON) SELECT id FROM audit_events
        WHERE organization_id = $1 AND search_text ILIKE $2
        ORDER BY occurred_at DESC, id DESC LIMIT 51`,
      [org, '%user12345@customers%'],
    );
    const indexOf = await partitionIndexParents(t.db.url);
    const used = [...JSON.stringify(plan['QUERY PLAN']).matchAll(/"Index Name":"([^"]+)"/g)].map(
      (m) => indexOf.get(m[1]) ?? m[1],
    );
    expect(used).toContain('ix_audit_events_search');
  });
});
