import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TokensService } from '@app/identity';
import { ToolCallHistory, type ToolCallRow } from '@app/mcp-history';
import { coverHistory } from '../support/history-partitions.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { call, matchesSchema, me, sql, walk, type Json } from './platform-api.fixtures.js';

const BASE = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number): string => new Date(BASE + minutes * 60_000).toISOString();

interface Who {
  userId: string;
  tokenId: string;
  organizationId: string;
}

interface SeededCall {
  id: string;
  organization_id: string;
  token_id: string;
  user_id: string;
  tool: string;
  client_name: string | null;
  status: string;
  is_error: boolean;
  created_at: string;
}

async function insertToolCall(t: TestServer, c: SeededCall): Promise<void> {
  await sql(
    t,
    `INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, client_name, era, protocol_version, status,
                                 is_error, duration_ms, confirmation_id, request_id, arguments_digest, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, '2026-07-28', '2026-07-28', $7, $8, 12.25, NULL, $9, NULL, $10)`,
    [
      c.id,
      c.organization_id,
      c.token_id,
      c.user_id,
      c.tool,
      c.client_name,
      c.status,
      c.is_error,
      `req-${c.id}`,
      c.created_at,
    ],
  );
}

interface SeededConfirmation {
  id: string;
  organization_id: string;
  token_id: string;
  user_id: string;
  tool: string;
  status: 'pending' | 'consumed' | 'declined' | 'expired';
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  tool_call_id: string | null;
}

async function insertConfirmation(t: TestServer, c: SeededConfirmation): Promise<void> {
  await sql(
    t,
    `INSERT INTO mcp_confirmations (id, organization_id, token_id, user_id, tool, arguments_digest, target_type, target_id,
                                    message, status, protocol_version, client_name, created_at, expires_at, decided_at,
                                    tool_call_id, request_id)
     VALUES ($1, $2, $3, $4, $5, $6, 'portal_user', $7, $8, $9, '2026-07-28', 'Test client', $10, $11, $12, $13, $14)`,
    [
      c.id,
      c.organization_id,
      c.token_id,
      c.user_id,
      c.tool,
      createHash('sha256').update(c.id).digest('hex'),
      randomUUID(),
      `Run ${c.tool}?`,
      c.status,
      c.created_at,
      c.expires_at,
      c.decided_at,
      c.tool_call_id,
      `req-${c.id}`,
    ],
  );
}

async function insertAuditEvent(
  t: TestServer,
  who: Who,
  confirmationId: string,
  action: string,
  occurredAt: string,
): Promise<string> {
  const id = randomUUID();
  await sql(
    t,
    `INSERT INTO audit_events (id, organization_id, occurred_at, actor_type, actor_user_id, token_id, channel, client_name,
                               action, resource_type, resource_id, changes, request_id, confirmation_id)
     VALUES ($1, $2, $3, 'member', $4, $5, 'mcp', 'Test client', $6, 'portal_user', $7, '{}'::jsonb, 'req-audit', $8)`,
    [
      id,
      who.organizationId,
      occurredAt,
      who.userId,
      who.tokenId,
      action,
      randomUUID(),
      confirmationId,
    ],
  );
  return id;
}

const ids = (rows: Json[]): string[] => rows.map((r) => String(r.id));
const newestFirst = (rows: ReadonlyArray<{ created_at: string; id: string }>): string[] =>
  [...rows]
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
    .map((r) => r.id);

describe('REST /v1/mcp/tool-calls and /v1/mcp/confirmations (admin history)', () => {
  let t: TestServer;
  let owner: Who;
  let member: Who;
  let readonly: Who;
  let globex: Who;
  const calls: SeededCall[] = [];
  const globexCalls: SeededCall[] = [];
  const confirmations: Record<string, SeededConfirmation> = {};
  let auditIds: string[] = [];

  /** The seeded confirmation's name (`consumed`, `lapsed`, …) for a confirmation id. */
  const nameOf = (id: string): string =>
    Object.entries(confirmations).find(([, c]) => c.id === id)?.[0] ?? id;
  const acme = (): SeededConfirmation[] =>
    Object.values(confirmations).filter((c) => c.organization_id === owner.organizationId);
  const paths = (): string[] => [
    '/v1/mcp/tool-calls',
    `/v1/mcp/tool-calls/${calls[0].id}`,
    '/v1/mcp/confirmations',
    `/v1/mcp/confirmations/${confirmations.consumed.id}`,
  ];
  /** `[path, status, error code]` of a GET of each route with `token`. */
  const outcomes = (token: string): Promise<Array<[string, number, string | undefined]>> =>
    Promise.all(
      paths().map(async (path): Promise<[string, number, string | undefined]> => {
        const r = await call(t, 'GET', path, { token });
        return [path, r.status, r.body?.error?.code];
      }),
    );

  beforeAll(async () => {
    t = await startTestServer();
    // The rows below are at fixed past times: their partitions are made first.
    await coverHistory(t.db.url, '2025-12-31T00:00:00Z', '2026-03-03T00:00:00Z');
    [owner, member, readonly, globex] = await Promise.all(
      ['owner', 'member', 'readonly_pat', 'globex_owner'].map((token) => me(t, token)),
    );
    const tools = ['list_accounts', 'get_account', 'delete_portal_user'];
    const statuses = ['ok', 'ok', 'VALIDATION_ERROR', 'input_required'];
    const people = [owner, member, readonly];
    for (let i = 0; i < 24; i++) {
      const who = people[i % people.length];
      const status = statuses[i % statuses.length];
      calls.push({
        id: randomUUID(),
        organization_id: owner.organizationId,
        token_id: who.tokenId,
        user_id: who.userId,
        tool: tools[i % tools.length],
        client_name: i % 5 === 0 ? null : i % 2 === 0 ? 'Claude' : 'Cursor',
        status,
        is_error: status === 'VALIDATION_ERROR',
        // Two calls share each minute, so the id breaks ties in the keyset order.
        created_at: at(Math.floor(i / 2)),
      });
    }
    for (let i = 0; i < 3; i++) {
      globexCalls.push({
        id: randomUUID(),
        organization_id: globex.organizationId,
        token_id: globex.tokenId,
        user_id: globex.userId,
        tool: 'list_accounts',
        client_name: 'Claude',
        status: 'ok',
        is_error: false,
        created_at: at(i),
      });
    }
    for (const c of [...calls, ...globexCalls]) await insertToolCall(t, c);

    const far = at(60 * 24 * 365 * 10);
    const confirmation = (
      key: string,
      who: Who,
      minute: number,
      status: SeededConfirmation['status'],
      over: Partial<SeededConfirmation> = {},
    ): void => {
      confirmations[key] = {
        id: randomUUID(),
        organization_id: who.organizationId,
        token_id: who.tokenId,
        user_id: who.userId,
        tool: 'delete_portal_user',
        status,
        created_at: at(minute),
        expires_at: at(minute + 10),
        decided_at: status === 'consumed' || status === 'declined' ? at(minute + 1) : null,
        tool_call_id: null,
        ...over,
      };
    };
    confirmation('consumed', owner, 0, 'consumed', { tool_call_id: calls[2].id });
    confirmation('declined', member, 1, 'declined');
    confirmation('expired', owner, 2, 'expired');
    confirmation('lapsed', owner, 3, 'pending'); // pending in the table, expired ten minutes after 2026-03-01
    confirmation('pending', member, 4, 'pending', { tool: 'delete_account', expires_at: far });
    confirmation('pending2', owner, 5, 'pending', { expires_at: far });
    confirmation('globex', globex, 0, 'consumed', { tool_call_id: globexCalls[0].id });
    for (const c of Object.values(confirmations)) await insertConfirmation(t, c);

    const consumed = confirmations.consumed.id;
    auditIds = [
      await insertAuditEvent(t, owner, consumed, 'portal_user.deactivated', at(1)),
      await insertAuditEvent(t, owner, consumed, 'portal_user.deleted', at(2)),
    ];
    await insertAuditEvent(t, owner, confirmations.declined.id, 'portal_user.deleted', at(3));
  });
  afterAll(async () => t?.close());

  describe('tool calls', () => {
    it('lists the organisation’s calls only, newest first (id breaks ties), in the documented shape', async () => {
      const r = await call(t, 'GET', '/v1/mcp/tool-calls?limit=100');
      expect(r.status).toBe(200);
      expect(matchesSchema('ToolCallPageDto', r.body)).toEqual([]);
      expect(ids(r.body.data)).toEqual(newestFirst(calls));
      expect(r.body.next_cursor).toBeNull();
      const c = calls[5];
      expect(r.body.data.find((x: Json) => x.id === c.id)).toEqual({
        id: c.id,
        tool: c.tool,
        status: c.status,
        outcome: c.status === 'VALIDATION_ERROR' ? 'tool_error' : 'ok',
        is_error: c.is_error,
        era: '2026-07-28',
        protocol_version: '2026-07-28',
        client_name: c.client_name,
        user_id: c.user_id,
        token_id: c.token_id,
        duration_ms: 12.25,
        confirmation_id: null,
        request_id: `req-${c.id}`,
        trace_id: null,
        correlation_id: null,
        approval_id: null,
        arguments_digest: null,
        created_at: c.created_at,
      });
    });

    it.each<[string, (c: SeededCall) => boolean, () => string]>([
      ['tool', (c) => c.tool === 'get_account', () => 'tool=get_account'],
      ['status', (c) => c.status === 'VALIDATION_ERROR', () => 'status=VALIDATION_ERROR'],
      ['user', (c) => c.user_id === member.userId, () => `user=${member.userId}`],
      ['token', (c) => c.token_id === readonly.tokenId, () => `token=${readonly.tokenId}`],
      ['client', (c) => c.client_name === 'Cursor', () => 'client=Cursor'],
      ['since (inclusive)', (c) => c.created_at >= at(8), () => `since=${at(8)}`],
      [
        'until (exclusive)',
        (c) => c.created_at < at(3),
        () => `until=${encodeURIComponent('2026-03-01T13:03:00+03:00')}`,
      ],
      [
        'several filters and a time range',
        (c) =>
          c.tool === 'list_accounts' &&
          c.status === 'ok' &&
          c.created_at >= at(2) &&
          c.created_at < at(10),
        () => `tool=list_accounts&status=ok&since=${at(2)}&until=${at(10)}`,
      ],
    ])('filter %s', async (_name, keep, query) => {
      const expected = newestFirst(calls.filter(keep));
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(calls.length);
      const r = await call(t, 'GET', `/v1/mcp/tool-calls?limit=100&${query()}`);
      expect(r.status).toBe(200);
      expect(ids(r.body.data)).toEqual(expected);
    });

    it('pagination walks every page exactly once, with and without a filter', async () => {
      const all = await walk(t, '/v1/mcp/tool-calls', 5);
      expect(all.pages).toBe(Math.ceil(calls.length / 5));
      expect(ids(all.rows)).toEqual(newestFirst(calls));
      const filtered = await walk(t, '/v1/mcp/tool-calls?status=ok', 3);
      const expected = newestFirst(calls.filter((c) => c.status === 'ok'));
      expect(filtered.pages).toBe(Math.ceil(expected.length / 3));
      expect(ids(filtered.rows)).toEqual(expected);
    });

    it('gets one call; another organisation’s or an unknown id is 404 NOT_FOUND', async () => {
      const list = await call(t, 'GET', '/v1/mcp/tool-calls?limit=1');
      const got = await call(t, 'GET', `/v1/mcp/tool-calls/${list.body.data[0].id}`);
      expect(got.status).toBe(200);
      expect(matchesSchema('ToolCallDetailDto', got.body)).toEqual([]);
      // The detail is the listed row plus what the call used and wrote.
      expect(got.body).toEqual({
        ...list.body.data[0],
        approval: null,
        confirmation: null,
        audit_events: [],
        trace_url: null,
      });
      for (const id of [globexCalls[0].id, randomUUID()]) {
        const r = await call(t, 'GET', `/v1/mcp/tool-calls/${id}`);
        expect(r.status).toBe(404);
        expect(r.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Tool call not found' } });
      }
      const globexView = await call(t, 'GET', '/v1/mcp/tool-calls?limit=100', {
        token: 'globex_owner',
      });
      expect(ids(globexView.body.data)).toEqual(newestFirst(globexCalls));
    });

    it('refuses bad input with VALIDATION_ERROR naming the field', async () => {
      const cases: Array<[string, string]> = [
        ['/v1/mcp/tool-calls/123', 'id'],
        ['/v1/mcp/tool-calls?since=yesterday', 'since'],
        ['/v1/mcp/tool-calls?user=someone', 'user'],
        [`/v1/mcp/tool-calls?since=${at(5)}&until=${at(5)}`, 'until'],
        ['/v1/mcp/tool-calls?limit=101', 'limit'],
        ['/v1/mcp/tool-calls?bogus=1', 'bogus'],
        [
          `/v1/mcp/tool-calls?cursor=${Buffer.from('["not a time","not a uuid"]').toString('base64url')}`,
          'cursor',
        ],
      ];
      for (const [path, field] of cases) {
        const r = await call(t, 'GET', path);
        expect({
          path,
          status: r.status,
          code: r.body.error.code,
          fields: r.body.error.details.map((d: Json) => d.field),
        }).toEqual({
          path,
          status: 422,
          code: 'VALIDATION_ERROR',
          fields: [field],
        });
      }
    });

    it('shows what the history writer recorded (arguments as a digest only)', async () => {
      const row: ToolCallRow = {
        id: randomUUID(),
        organizationId: owner.organizationId,
        tokenId: owner.tokenId,
        userId: owner.userId,
        tool: 'delete_account',
        clientName: 'Writer client',
        era: '2025',
        protocolVersion: '2025-06-18',
        status: 'ok',
        isError: false,
        receivedAt: '2026-01-01T00:00:00.000001Z',
        durationMs: 3.5,
        confirmationId: confirmations.consumed.id,
        requestId: 'req-writer',
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        correlationId: 'client-chosen-id',
        approvalId: randomUUID(),
        args: { id: 'acc-1', secret: 'never stored' },
      };
      await t.server.app.get(ToolCallHistory).record(row, { durable: true });
      const r = await call(t, 'GET', `/v1/mcp/tool-calls/${row.id}`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        tool: 'delete_account',
        client_name: 'Writer client',
        era: '2025',
        protocol_version: '2025-06-18',
        duration_ms: 3.5,
        confirmation_id: confirmations.consumed.id,
        request_id: 'req-writer',
        trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
        correlation_id: 'client-chosen-id',
        approval_id: row.approvalId,
        arguments_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(JSON.stringify(r.body)).not.toContain('never stored');
      await sql(t, 'DELETE FROM mcp_tool_calls WHERE id = $1', [row.id]);
    });
  });

  describe('confirmations', () => {
    it('lists the organisation’s confirmations newest first; a lapsed pending one shows as expired', async () => {
      const r = await call(t, 'GET', '/v1/mcp/confirmations');
      expect(r.status).toBe(200);
      expect(matchesSchema('ConfirmationPageDto', r.body)).toEqual([]);
      expect(r.body.data.map((c: Json) => nameOf(c.id))).toEqual([
        'pending2',
        'pending',
        'lapsed',
        'expired',
        'declined',
        'consumed',
      ]);
      expect(Object.fromEntries(r.body.data.map((c: Json) => [nameOf(c.id), c.status]))).toEqual({
        pending2: 'pending',
        pending: 'pending',
        lapsed: 'expired',
        expired: 'expired',
        declined: 'declined',
        consumed: 'consumed',
      });
      const consumed = confirmations.consumed;
      expect(r.body.data.find((c: Json) => c.id === consumed.id)).toEqual({
        id: consumed.id,
        tool: 'delete_portal_user',
        status: 'consumed',
        target_type: 'portal_user',
        target_id: expect.any(String),
        message: 'Run delete_portal_user?',
        protocol_version: '2026-07-28',
        client_name: 'Test client',
        user_id: owner.userId,
        token_id: owner.tokenId,
        created_at: at(0),
        expires_at: at(10),
        decided_at: at(1),
        tool_call_id: calls[2].id,
        mode: 'form',
        policy_version: 0,
        verified_at: null,
      });
    });

    it.each<[string, string, string[]]>([
      ['status=pending (not lapsed)', 'status=pending', ['pending2', 'pending']],
      ['status=expired (lapsed pending included)', 'status=expired', ['lapsed', 'expired']],
      ['status=consumed', 'status=consumed', ['consumed']],
      ['status=declined', 'status=declined', ['declined']],
      ['tool', 'tool=delete_account', ['pending']],
      ['user', 'USER', ['pending', 'declined']],
      ['since/until', `since=${at(1)}&until=${at(4)}`, ['lapsed', 'expired', 'declined']],
    ])('filter %s', async (_name, query, expected) => {
      const q = query === 'USER' ? `user=${member.userId}` : query;
      const r = await call(t, 'GET', `/v1/mcp/confirmations?${q}`);
      expect(r.status).toBe(200);
      expect(r.body.data.map((c: Json) => nameOf(c.id))).toEqual(expected);
    });

    it('pagination walks every page exactly once', async () => {
      const { rows, pages } = await walk(t, '/v1/mcp/confirmations', 4);
      expect(pages).toBe(2);
      expect(ids(rows)).toEqual(newestFirst(acme()));
      const status = await call(t, 'GET', '/v1/mcp/confirmations?status=bogus');
      expect(status.status).toBe(422);
      expect(status.body.error.details).toEqual([
        { field: 'status', message: expect.stringContaining('one of') },
      ]);
    });

    it('one confirmation with the tool call it authorized and the audit events it produced', async () => {
      const consumed = confirmations.consumed;
      const r = await call(t, 'GET', `/v1/mcp/confirmations/${consumed.id}`);
      expect(r.status).toBe(200);
      expect(matchesSchema('ConfirmationDetailDto', r.body)).toEqual([]);
      expect(r.body).toMatchObject({
        id: consumed.id,
        status: 'consumed',
        tool_call_id: calls[2].id,
      });
      const toolCall = await call(t, 'GET', `/v1/mcp/tool-calls/${calls[2].id}`);
      const {
        approval: _chain,
        confirmation: _used,
        audit_events: _wrote,
        trace_url: _link,
        ...row
      } = toolCall.body;
      expect(r.body.tool_call).toEqual(row);
      expect(ids(r.body.audit_events)).toEqual(auditIds);
      expect(r.body.audit_events[0]).toMatchObject({
        action: 'portal_user.deactivated',
        channel: 'mcp',
        actor_user_id: owner.userId,
        token_id: owner.tokenId,
        confirmation_id: consumed.id,
      });

      const pending = await call(t, 'GET', `/v1/mcp/confirmations/${confirmations.pending.id}`);
      expect(pending.status).toBe(200);
      expect(pending.body).toMatchObject({
        status: 'pending',
        tool_call_id: null,
        tool_call: null,
        audit_events: [],
      });
      const lapsed = await call(t, 'GET', `/v1/mcp/confirmations/${confirmations.lapsed.id}`);
      expect(lapsed.body.status).toBe('expired');
    });

    it('another organisation’s or an unknown confirmation is 404 NOT_FOUND', async () => {
      for (const id of [confirmations.globex.id, randomUUID()]) {
        const r = await call(t, 'GET', `/v1/mcp/confirmations/${id}`);
        expect(r.status).toBe(404);
        expect(r.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Confirmation not found' } });
      }
      const mine = await call(t, 'GET', `/v1/mcp/confirmations/${confirmations.globex.id}`, {
        token: 'globex_owner',
      });
      expect(mine.status).toBe(200);
      expect(mine.body.tool_call.id).toBe(globexCalls[0].id);
      const list = await call(t, 'GET', '/v1/mcp/confirmations', { token: 'globex_owner' });
      expect(ids(list.body.data)).toEqual([confirmations.globex.id]);
    });
  });

  describe('authorization (scope audit:read, permission audit.read)', () => {
    it('the read-only PAT (audit:read, owner) may read; an OAuth token, issued for the MCP URL, may not', async () => {
      expect(await outcomes('readonly_pat')).toEqual(paths().map((path) => [path, 200, undefined]));
      expect(await outcomes('oauth_reader')).toEqual(
        paths().map((path) => [path, 401, 'INVALID_TOKEN']),
      );
    });

    it('a member (no audit.read permission) is refused with insufficient_permission', async () => {
      expect(await outcomes('member')).toEqual(
        paths().map((path) => [path, 403, 'insufficient_permission']),
      );
    });

    it('a token without the audit:read scope is refused with insufficient_scope; no token is 401', async () => {
      const { secret } = await t.server.app.get(TokensService).issue({
        organizationId: owner.organizationId,
        userId: owner.userId,
        kind: 'personal',
        name: 'accounts only',
        scopes: ['accounts:read'],
      });
      expect(await outcomes(secret)).toEqual(
        paths().map((path) => [path, 403, 'insufficient_scope']),
      );
      const anonymous = await Promise.all(
        paths().map(async (path) => [path, (await t.request(path)).status]),
      );
      expect(anonymous).toEqual(paths().map((path) => [path, 401]));
    });
  });
});

describe('call history writes (batching, durability, shutdown)', () => {
  let t: TestServer;
  let owner: Who;
  let closed = false;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await me(t, 'owner');
  });
  afterAll(async () => {
    if (!closed) await t?.close();
  });

  const readRow = (requestId: string): ToolCallRow => ({
    id: randomUUID(),
    organizationId: owner.organizationId,
    tokenId: owner.tokenId,
    userId: owner.userId,
    tool: 'list_accounts',
    clientName: 'Batch client',
    era: '2026-07-28',
    protocolVersion: '2026-07-28',
    status: 'ok',
    isError: false,
    receivedAt: new Date().toISOString(),
    durationMs: 1,
    confirmationId: null,
    requestId,
    traceId: null,
    correlationId: null,
    approvalId: null,
    args: {},
  });

  async function stored(requestIdPrefix: string): Promise<number> {
    const [row] = await sql<{ n: string }>(
      t,
      `SELECT count(*)::text AS n FROM mcp_tool_calls WHERE request_id LIKE $1`,
      [`${requestIdPrefix}%`],
    );
    return Number(row.n);
  }

  it('a durable row is visible as soon as record() resolves', async () => {
    const history = t.server.app.get(ToolCallHistory);
    const row = { ...readRow('durable-1'), tool: 'delete_account' };
    await history.record(row, { durable: true });
    expect(await stored('durable-1')).toBe(1);
    expect((await call(t, 'GET', `/v1/mcp/tool-calls/${row.id}`)).status).toBe(200);
  });

  it('buffered read rows are not written synchronously, and are written within the flush interval', async () => {
    const history = t.server.app.get(ToolCallHistory);
    const started = performance.now();
    for (let i = 0; i < 3; i++) await history.record(readRow(`buffered-${i}`), { durable: false });
    expect(await stored('buffered-')).toBe(0);
    await vi.waitFor(async () => expect(await stored('buffered-')).toBe(3), {
      timeout: 2_000,
      interval: 10,
    });
    // 250 ms flush interval; the margin covers the insert itself on a loaded machine.
    expect(performance.now() - started).toBeLessThan(250 + 500);
  });

  it('closing the app flushes every row still buffered (none lost)', async () => {
    const history = t.server.app.get(ToolCallHistory);
    // Two full batches (written at once) and 50 rows left in the buffer.
    for (let i = 0; i < 250; i++)
      await history.record(readRow(`shutdown-${i}`), { durable: false });
    await t.server.app.close();
    closed = true;
    expect(await stored('shutdown-')).toBe(250);
    await t.db.dispose();
  });
});
