import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { legacyToolCall, modernToolCall, type RawResponse } from '../support/raw-mcp.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { byText, call, type Json } from './platform-api.fixtures.js';

/**
 * The call history as admins rely on it: no client can make another organisation's rows vanish,
 * a write's row is there when its result is, and a row's time is when the call was received.
 */
describe('MCP call history writer', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t?.close());

  const tool = (
    token: keyof TestServer['tokens'],
    client: string,
    name: string,
    args: Record<string, unknown>,
    requestId: string = randomUUID(),
  ): Promise<RawResponse> =>
    modernToolCall(t.url, t.tokens[token], client, name, args, { requestId });

  async function historyOf(token: string, query: string): Promise<Json[]> {
    const r = await call(t, 'GET', `/v1/mcp/tool-calls?limit=100&${query}`, { token });
    expect(r.status).toBe(200);
    return r.body.data;
  }

  it('hostile client names from one organisation never cost another organisation its rows', async () => {
    const run = randomUUID().slice(0, 8);
    const hostile = [`nul\u0000${run}`, `long-${run}-${'x'.repeat(6_000)}`, `\uD800lone-${run}`];
    const acme = Array.from({ length: 5 }, (_, i) => `acme-${run}-${i}`);
    const responses = await Promise.all([
      ...hostile.map((client) => tool('globex_owner', client, 'list_accounts', {})),
      ...acme.map((requestId) =>
        tool('owner', `acme-client-${run}`, 'list_accounts', {}, requestId),
      ),
    ]);
    for (const r of responses) {
      expect(r.status).toBe(200);
      expect(r.body.result?.isError ?? false).toBe(false);
    }
    await vi.waitFor(
      async () => {
        const mine = await historyOf('owner', `client=acme-client-${run}`);
        expect(mine.map((c) => c.correlation_id).sort(byText)).toEqual([...acme].sort(byText));
      },
      { timeout: 5_000, interval: 100 },
    );
    const globex = await historyOf('globex_owner', 'tool=list_accounts');
    const names = globex.map((c) => String(c.client_name)).filter((n) => n.includes(run));
    expect(names.sort(byText)).toEqual(
      [`nul${run}`, `long-${run}-${'x'.repeat(200 - 6 - run.length)}`, `\uFFFDlone-${run}`].sort(
        byText,
      ),
    );
  });

  it('a write with a hostile client name succeeds, audited, its history row there when its result is', async () => {
    const requestId = randomUUID();
    const r = await tool(
      'owner',
      `w\u0000${'y'.repeat(6_000)}`,
      'create_account',
      { name: `History Ltd ${requestId.slice(0, 8)}` },
      requestId,
    );
    expect(r.status).toBe(200);
    expect(r.body.result.isError ?? false).toBe(false);
    const [row] = await historyOf('owner', 'tool=create_account');
    // Linked to its audit event by the id the server issued (the answer's X-Request-Id); the
    // client's own id is kept beside it.
    expect(row).toMatchObject({
      request_id: r.headers.get('x-request-id'),
      correlation_id: requestId,
      status: 'ok',
    });
    expect(row.request_id).not.toBe(requestId);
    expect(row.client_name).toMatch(/^wy{199}$/);
    const events = await call(t, 'GET', '/v1/audit-events?channel=mcp&action=account.created');
    expect(events.body.data[0]).toMatchObject({ request_id: row.request_id });
  });

  it('a client’s X-Request-Id links nothing: a read sent with the id of another person’s write shows no audit event of it', async () => {
    const shared = `shared-${randomUUID()}`;
    const write = await tool(
      'owner',
      'writer-client',
      'create_account',
      { name: `Shared Id Ltd ${shared.slice(7, 15)}` },
      shared,
    );
    expect(write.body.result.isError ?? false).toBe(false);
    const read = await tool('member', 'reader-client', 'list_accounts', {}, shared);
    expect(read.body.result.isError ?? false).toBe(false);
    // Each request has an id the server issued, in its answer; the client's is not adopted.
    const ids = [write, read].map((r) => r.headers.get('x-request-id'));
    expect(new Set([...ids, shared]).size).toBe(3);

    let rows: Json[] = [];
    await vi.waitFor(
      async () => {
        rows = [
          ...(await historyOf('owner', 'client=writer-client')),
          ...(await historyOf('owner', 'client=reader-client')),
        ].filter((c) => c.correlation_id === shared);
        expect(rows).toHaveLength(2);
      },
      { timeout: 5_000, interval: 100 },
    );
    const detail = async (toolName: string): Promise<Json> => {
      const row = rows.find((c) => c.tool === toolName);
      const r = await call(t, 'GET', `/v1/mcp/tool-calls/${String(row?.id)}`);
      expect(r.status).toBe(200);
      return r.body;
    };
    const reader = await detail('list_accounts');
    expect(reader).toMatchObject({ request_id: ids[1], correlation_id: shared, audit_events: [] });
    const writer = await detail('create_account');
    expect(writer).toMatchObject({ request_id: ids[0], correlation_id: shared });
    expect(writer.audit_events).toHaveLength(1);
    expect(writer.audit_events[0]).toMatchObject({
      action: 'account.created',
      request_id: ids[0],
    });
  });

  it('a REST write’s audit event carries the id the server issued, not the client’s X-Request-Id', async () => {
    const sent = `rest-${randomUUID()}`;
    const res = await t.request('/v1/accounts', {
      method: 'POST',
      token: 'owner',
      json: { name: `Rest Id Ltd ${sent.slice(5, 13)}` },
      headers: { 'x-request-id': sent },
    });
    expect(res.status).toBe(201);
    const issued = res.headers.get('x-request-id');
    expect(issued).toMatch(/^[0-9a-f-]{36}$/);
    expect(issued).not.toBe(sent);
    const created: Json = await res.json();
    const events = await call(
      t,
      'GET',
      `/v1/audit-events?action=account.created&resource_id=${String(created.id)}`,
    );
    expect(events.body.data.map((e: Json) => e.request_id)).toEqual([issued]);
  });

  it('an unknown tool keeps the name the client asked for, normalised and capped', async () => {
    const requestId = randomUUID();
    // The 2025 era: no Mcp-Name header to carry (a header could not hold U+0000).
    const r = await legacyToolCall(
      t.url,
      t.tokens.owner,
      `no_such\u0000_${'z'.repeat(5_000)}`,
      {},
      {
        requestId,
      },
    );
    expect(r.body.error.code).toBe(-32602);
    await vi.waitFor(
      async () => {
        const [row] = (await historyOf('owner', 'status=rpc_error:-32602')).filter(
          (c) => c.correlation_id === requestId,
        );
        expect(row?.tool).toMatch(/^no_such_z{192}$/);
      },
      { timeout: 5_000, interval: 100 },
    );
  });

  it('a row’s time is when the call was received: call order newest first, since/until on it', async () => {
    const client = `order-${randomUUID().slice(0, 8)}`;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const requestId = `${client}-${i}`;
      ids.push(requestId);
      await tool('owner', client, 'list_accounts', { limit: 1 }, requestId);
      await new Promise((r) => setTimeout(r, 30));
    }
    let rows: Json[] = [];
    await vi.waitFor(
      async () => {
        rows = await historyOf('owner', `client=${client}`);
        expect(rows).toHaveLength(6);
      },
      { timeout: 5_000, interval: 100 },
    );
    // Written in one batch, yet six distinct times, newest first in call order.
    expect(rows.map((r) => r.correlation_id)).toEqual(ids.toReversed());
    const times = rows.map((r) => Date.parse(r.created_at));
    for (let i = 1; i < times.length; i++) expect(times[i - 1] - times[i]).toBeGreaterThan(20);
    // since (inclusive) and until (exclusive) select by that time.
    const third = rows[3].created_at;
    const fifth = rows[1].created_at;
    const between = await historyOf(
      'owner',
      `client=${client}&since=${encodeURIComponent(third)}&until=${encodeURIComponent(fifth)}`,
    );
    expect(between.map((r) => r.correlation_id)).toEqual([ids[3], ids[2]]);
  });
});
