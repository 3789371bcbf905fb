import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeOf } from '@app/mcp-history';
import { TOOL_CALL_REFUSAL_STATUSES } from '@app/mcp-transport';
import { coverHistory } from '../support/history-partitions.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { call, matchesSchema, me, sql, type Json } from './platform-api.fixtures.js';

/**
 * What the admin console reads besides the lists: calls per minute by outcome with the p95
 * duration, the filter values with names, and one call with its confirmation and audit events.
 */

const BASE = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number, seconds = 0): string =>
  new Date(BASE + minutes * 60_000 + seconds * 1000).toISOString();

interface Who {
  userId: string;
  tokenId: string;
  organizationId: string;
}

async function insertCall(
  t: TestServer,
  who: Who,
  c: {
    tool: string;
    status: string;
    createdAt: string;
    durationMs?: number;
    client?: string | null;
    requestId?: string;
    confirmationId?: string | null;
  },
): Promise<string> {
  const id = randomUUID();
  await sql(
    t,
    `INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, client_name, era, protocol_version, status,
                                 is_error, duration_ms, confirmation_id, request_id, arguments_digest, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, '2026-07-28', '2026-07-28', $7, $8, $9, $10, $11, $12, $13)`,
    [
      id,
      who.organizationId,
      who.tokenId,
      who.userId,
      c.tool,
      c.client === undefined ? 'Claude' : c.client,
      c.status,
      outcomeOf(c.status) === 'tool_error',
      c.durationMs ?? 10,
      c.confirmationId ?? null,
      c.requestId ?? `req-${id}`,
      'a'.repeat(64),
      c.createdAt,
    ],
  );
  return id;
}

describe('the admin console’s activity endpoints', () => {
  let t: TestServer;
  let owner: Who;
  let member: Who;
  let globex: Who;

  beforeAll(async () => {
    t = await startTestServer();
    // The rows below are at fixed past times: their partitions are made first.
    await coverHistory(t.db.url, '2026-02-28T00:00:00Z', '2026-03-03T00:00:00Z');
    [owner, member, globex] = await Promise.all(
      ['owner', 'member', 'globex_owner'].map((token) => me(t, token)),
    );
    // Minute 0: two ok (10 and 30 ms), a tool error, a refusal; minute 1: nothing;
    // minute 2: a protocol error and an input_required (counted as ok).
    await insertCall(t, owner, { tool: 'list_accounts', status: 'ok', createdAt: at(0, 1) });
    await insertCall(t, member, {
      tool: 'list_accounts',
      status: 'ok',
      createdAt: at(0, 20),
      durationMs: 30,
      client: 'Cursor',
    });
    await insertCall(t, owner, { tool: 'get_account', status: 'NOT_FOUND', createdAt: at(0, 30) });
    await insertCall(t, member, {
      tool: 'delete_account',
      status: 'insufficient_permission',
      createdAt: at(0, 40),
    });
    await insertCall(t, owner, {
      tool: 'get_account',
      status: 'rpc_error:-32602',
      createdAt: at(2, 5),
    });
    await insertCall(t, owner, {
      tool: 'delete_account',
      status: 'input_required',
      createdAt: at(2, 6),
    });
    // Another organisation, same minutes: never counted, never listed.
    await insertCall(t, globex, { tool: 'globex_only_tool', status: 'ok', createdAt: at(0, 2) });
  });
  afterAll(async () => {
    await t?.close();
  });

  const series = (query: string, token = 'owner'): Promise<Json> =>
    call(t, 'GET', `/v1/mcp/tool-calls/per-minute?${query}`, { token });

  describe('GET /v1/mcp/tool-calls/per-minute', () => {
    it('counts every minute of the window by outcome, with the p95 duration', async () => {
      const res = await series(`since=${at(0)}&until=${at(3)}`);
      expect(res.status).toBe(200);
      expect(matchesSchema('ToolCallSeriesDto', res.body)).toEqual([]);
      const [m0, m1, m2] = res.body.data;
      expect(res.body.data).toHaveLength(3);
      expect(m0).toMatchObject({
        minute: at(0),
        ok: 2,
        tool_error: 1,
        refused: 1,
        protocol_error: 0,
      });
      // p95 over 10, 30, 10, 10 ms (continuous percentile): 27 ms.
      expect(m0.p95_ms).toBeCloseTo(27, 5);
      expect(m1).toEqual({
        minute: at(1),
        ok: 0,
        tool_error: 0,
        refused: 0,
        protocol_error: 0,
        p95_ms: null,
      });
      expect(m2).toMatchObject({ minute: at(2), ok: 1, protocol_error: 1 });
    });

    it('applies the list filters', async () => {
      const res = await series(`since=${at(0)}&until=${at(3)}&tool=list_accounts&client=Cursor`);
      expect(res.status).toBe(200);
      expect(res.body.data.map((b: Json) => b.ok)).toEqual([1, 0, 0]);
      const byPerson = await series(`since=${at(0)}&until=${at(3)}&user=${member.userId}`);
      expect(byPerson.body.data[0]).toMatchObject({ ok: 1, refused: 1, tool_error: 0 });
    });

    it('refuses a window over a day, or one that ends before it starts', async () => {
      const long = await series(`since=${at(0)}&until=${at(24 * 60 + 1)}`);
      expect(long.status).toBe(422);
      expect(long.body.error.code).toBe('VALIDATION_ERROR');
      const backwards = await series(`since=${at(5)}&until=${at(1)}`);
      expect(backwards.status).toBe(422);
      expect(backwards.body.error.details).toEqual([
        { field: 'until', message: 'must be after since' },
      ]);
    });

    it('needs audit.read', async () => {
      const res = await series(`since=${at(0)}&until=${at(3)}`, 'member');
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('insufficient_permission');
    });
  });

  describe('the outcome classes', () => {
    it('are the same in SQL (the series) and in code (each call’s `outcome`)', async () => {
      const statuses = [
        'ok',
        'input_required',
        'rpc_error:-32602',
        'rpc_error:-32603',
        'NOT_FOUND',
        'VALIDATION_ERROR',
        'confirmation_unavailable',
        ...TOOL_CALL_REFUSAL_STATUSES,
      ];
      for (const status of statuses) {
        const minute = 100 + statuses.indexOf(status);
        await insertCall(t, owner, { tool: 'probe', status, createdAt: at(minute) });
        const res = await call(
          t,
          'GET',
          `/v1/mcp/tool-calls/per-minute?since=${at(minute)}&until=${at(minute + 1)}&tool=probe`,
          { token: 'owner' },
        );
        const bucket = res.body.data[0];
        const counted = Object.entries(bucket)
          .filter(([k, v]) => k !== 'minute' && k !== 'p95_ms' && v === 1)
          .map(([k]) => k);
        expect(counted, status).toEqual([outcomeOf(status)]);
      }
      expect(outcomeOf('insufficient_scope')).toBe('refused');
      expect(outcomeOf('USER_DECLINED')).toBe('tool_error');
      expect(outcomeOf('input_required')).toBe('ok');
      expect(outcomeOf('rpc_error:-32700')).toBe('protocol_error');
      expect(outcomeOf('EXTERNAL_SERVICE_ERROR')).toBe('tool_error');
    });

    it('are on every listed call', async () => {
      const res = await call(t, 'GET', `/v1/mcp/tool-calls?since=${at(0)}&until=${at(3)}`, {
        token: 'owner',
      });
      expect(res.status).toBe(200);
      expect(res.body.data.map((c: Json) => [c.status, c.outcome])).toEqual([
        ['input_required', 'ok'],
        ['rpc_error:-32602', 'protocol_error'],
        ['insufficient_permission', 'refused'],
        ['NOT_FOUND', 'tool_error'],
        ['ok', 'ok'],
        ['ok', 'ok'],
      ]);
    });
  });

  describe('GET /v1/mcp/tool-calls/facets', () => {
    it('lists the filter values of this organisation, with people and tokens by name', async () => {
      await insertCall(t, owner, {
        tool: 'list_accounts',
        status: 'ok',
        createdAt: new Date().toISOString(),
      });
      await insertCall(t, globex, {
        tool: 'globex_only_tool',
        status: 'ok',
        createdAt: new Date().toISOString(),
        client: 'Globex agent',
      });
      const res = await call(t, 'GET', '/v1/mcp/tool-calls/facets', { token: 'owner' });
      expect(res.status).toBe(200);
      expect(matchesSchema('ToolCallFacetsDto', res.body)).toEqual([]);
      expect(res.body.outcomes).toEqual(['ok', 'tool_error', 'refused', 'protocol_error']);
      expect(res.body.tools).toContain('list_accounts');
      expect(res.body.tools).not.toContain('globex_only_tool');
      expect(res.body.clients).not.toContain('Globex agent');
      const ownerRow = res.body.people.find((p: Json) => p.user_id === owner.userId);
      expect(ownerRow).toMatchObject({
        name: expect.any(String),
        email: expect.stringContaining('@'),
      });
      expect(res.body.people.map((p: Json) => p.user_id)).not.toContain(globex.userId);
      expect(res.body.tokens.find((k: Json) => k.token_id === owner.tokenId)).toMatchObject({
        kind: 'personal',
        name: expect.any(String),
      });
      expect(res.body.tokens.map((k: Json) => k.token_id)).not.toContain(globex.tokenId);
    });
  });

  describe('GET /v1/mcp/tool-calls/{id}', () => {
    it('carries the confirmation the call presented and the audit events it wrote', async () => {
      const confirmationId = randomUUID();
      const requestId = `req-${randomUUID()}`;
      await sql(
        t,
        `INSERT INTO mcp_confirmations (id, organization_id, token_id, user_id, tool, arguments_digest, target_type, target_id,
                                        message, status, protocol_version, client_name, created_at, expires_at, decided_at, request_id)
         VALUES ($1, $2, $3, $4, 'delete_account', $5, 'account', $6, 'Delete account Initech?', 'consumed', '2026-07-28',
                 'Claude', $7, $8, $9, 'req-ask')`,
        [
          confirmationId,
          owner.organizationId,
          owner.tokenId,
          owner.userId,
          'b'.repeat(64),
          randomUUID(),
          at(300),
          at(310),
          at(301),
        ],
      );
      const callId = await insertCall(t, owner, {
        tool: 'delete_account',
        status: 'ok',
        createdAt: at(301, 30),
        requestId,
        confirmationId,
      });
      const insertEvent = (request: string): Promise<unknown> =>
        sql(
          t,
          `INSERT INTO audit_events (id, organization_id, occurred_at, actor_type, actor_user_id, token_id, channel, client_name,
                                     action, resource_type, resource_id, changes, request_id, confirmation_id)
           VALUES ($1, $2, $3, 'member', $4, $5, 'mcp', 'Claude', 'account.deleted', 'account', $6,
                   '{"name":{"before":"Initech","after":null}}'::jsonb, $7, NULL)`,
          [
            randomUUID(),
            owner.organizationId,
            at(301, 31),
            owner.userId,
            owner.tokenId,
            randomUUID(),
            request,
          ],
        );
      await insertEvent(requestId);
      await insertEvent('another-request');

      const res = await call(t, 'GET', `/v1/mcp/tool-calls/${callId}`, { token: 'owner' });
      expect(res.status).toBe(200);
      expect(matchesSchema('ToolCallDetailDto', res.body)).toEqual([]);
      expect(res.body).toMatchObject({
        id: callId,
        outcome: 'ok',
        confirmation: {
          id: confirmationId,
          status: 'consumed',
          message: 'Delete account Initech?',
        },
      });
      expect(res.body.audit_events).toHaveLength(1);
      expect(res.body.audit_events[0]).toMatchObject({
        action: 'account.deleted',
        request_id: requestId,
        changes: { name: { before: 'Initech', after: null } },
      });

      const plain = await insertCall(t, owner, {
        tool: 'list_accounts',
        status: 'ok',
        createdAt: at(302),
      });
      const bare = await call(t, 'GET', `/v1/mcp/tool-calls/${plain}`, { token: 'owner' });
      expect(bare.body).toMatchObject({ confirmation: null, audit_events: [] });
      // Another organisation's admin cannot open it.
      const foreign = await call(t, 'GET', `/v1/mcp/tool-calls/${callId}`, {
        token: 'globex_owner',
      });
      expect(foreign.status).toBe(404);
    });
  });
});
