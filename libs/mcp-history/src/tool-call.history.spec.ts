import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MetricsService } from '@app/metrics';
import {
  HISTORY_BATCH_SIZE,
  HISTORY_FLUSH_INTERVAL_MS,
  HISTORY_RETAINED_MAX,
  ToolCallHistory,
  type ToolCallRow,
} from './tool-call.history.js';

const byText = (a: string, b: string): number => a.localeCompare(b);

function row(over: Partial<ToolCallRow> = {}): ToolCallRow {
  return {
    id: randomUUID(),
    organizationId: randomUUID(),
    tokenId: randomUUID(),
    userId: randomUUID(),
    tool: 'list_accounts',
    clientName: 'unit',
    era: '2026-07-28',
    protocolVersion: '2026-07-28',
    status: 'ok',
    isError: false,
    receivedAt: '2026-01-01T00:00:00.000001Z',
    durationMs: 1.5,
    confirmationId: null,
    requestId: 'req-1',
    traceId: null,
    correlationId: null,
    approvalId: null,
    args: { q: 'x' },
    ...over,
  };
}

/** One inserted row: the column arrays of an `unnest` insert, zipped back. */
type Inserted = unknown[];

/** The history over a fake DataSource whose `query` (the one unnest INSERT) the test controls. */
function setup() {
  const statements: Inserted[][] = [];
  const query = vi.fn<(sql: string, params: unknown[][]) => Promise<unknown>>(
    async (sql, params) => {
      expect(sql).toMatch(/^INSERT INTO mcp_tool_calls .* SELECT \* FROM unnest\(/s);
      const rows = (params[0] ?? []).map((_, i) => params.map((column) => column[i]));
      statements.push(rows);
      return Promise.resolve([]);
    },
  );
  const retained: number[] = [];
  const dropped: Record<string, number> = {};
  const metrics = {
    setHistoryRowsRetained: (n: number) => retained.push(n),
    recordHistoryRowsDropped: (reason: string, n: number) => {
      dropped[reason] = (dropped[reason] ?? 0) + n;
    },
  };
  const history = new ToolCallHistory(
    // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- a test double for the one method the history uses
    { query } as unknown as DataSource,
    // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- the two recorders the history uses
    metrics as unknown as MetricsService,
  );
  const ids = (): unknown[] => statements.flat().map((r) => r[0]);
  return { history, query, statements, ids, retained, dropped };
}

/** What pg says when the database is not there (a cut connection). */
function unavailable(): Error {
  return Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
}

describe('ToolCallHistory', () => {
  let warn: ReturnType<typeof vi.spyOn>;
  let error: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    error = vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('writes a durable row before record() resolves, digesting (not storing) the arguments', async () => {
    const { history, statements } = setup();
    const r = row();
    await history.record(r, { durable: true });
    expect(statements).toHaveLength(1);
    const [stored] = statements[0];
    expect(stored[0]).toBe(r.id);
    expect(stored[13]).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[14]).toBe(r.receivedAt);
    expect(JSON.stringify(stored)).not.toContain('"q"');
  });

  it('buffers read rows and writes them in one statement when the flush interval elapses', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { history, statements, ids } = setup();
    const rows = [row(), row(), row()];
    for (const r of rows) await history.record(r, { durable: false });
    await vi.advanceTimersByTimeAsync(HISTORY_FLUSH_INTERVAL_MS - 1);
    expect(statements).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(statements).toHaveLength(1);
    expect(ids()).toEqual(rows.map((r) => r.id));
  });

  it(`writes at once when ${HISTORY_BATCH_SIZE} rows are buffered`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { history, statements } = setup();
    for (let i = 0; i < HISTORY_BATCH_SIZE; i++) await history.record(row(), { durable: false });
    await vi.advanceTimersByTimeAsync(0);
    expect(statements.map((b) => b.length)).toEqual([HISTORY_BATCH_SIZE]);
  });

  it('client strings are normalised before they are queued: always storable, capped, the attempted tool name kept', async () => {
    const { history, statements } = setup();
    await history.record(
      row({
        tool: `no_such\u0000tool${'x'.repeat(5_000)}`,
        clientName: `evil\u0000${'y'.repeat(9_000)}\uD800`,
      }),
      { durable: true },
    );
    const [stored] = statements[0];
    expect(stored[4]).toMatch(/^no_suchtoolx+$/);
    expect(String(stored[4])).toHaveLength(200);
    expect(stored[5]).toMatch(/^evily+$/);
    expect(String(stored[5])).toHaveLength(200);
  });

  it('a failed batch is written again row by row: a transient failure loses nothing', async () => {
    const { history, query, ids } = setup();
    query.mockRejectedValueOnce(new Error('connection reset'));
    const rows = [row(), row()];
    for (const r of rows) await history.record(r, { durable: false });
    await history.flush();
    expect(query).toHaveBeenCalledTimes(3);
    expect(ids()).toEqual(rows.map((r) => r.id));
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ rows: 2 }),
      expect.stringContaining('row by row'),
    );
    expect(error).not.toHaveBeenCalled();
  });

  it('one row the database refuses costs only that row; the caller never fails', async () => {
    const { history, query, ids } = setup();
    const bad = row();
    const good = [row(), row(), row()];
    const realQuery = query.getMockImplementation()!;
    query.mockImplementation(async (sql, params) => {
      if ((params[0] ?? []).includes(bad.id)) throw new Error('index row size exceeds maximum');
      return realQuery(sql, params);
    });
    for (const r of [good[0], bad, good[1], good[2]]) await history.record(r, { durable: false });
    await expect(history.flush()).resolves.toBeUndefined();
    expect(ids()).toEqual(good.map((r) => r.id));
    expect(error).toHaveBeenCalledWith(
      expect.objectContaining({ toolCallId: bad.id }),
      expect.stringContaining('row lost'),
    );
  });

  it('shutdown flushes the buffer; rows recorded while draining are written directly', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { history, statements, ids } = setup();
    const buffered = [row(), row()];
    for (const r of buffered) await history.record(r, { durable: false });
    await history.beforeApplicationShutdown();
    expect(ids()).toEqual(buffered.map((r) => r.id));
    const late = row();
    await history.record(late, { durable: false });
    expect(ids()).toContain(late.id);
    expect(vi.getTimerCount()).toBe(0);
    expect(statements).toHaveLength(2);
  });

  it('rows the database cannot take now are kept, counted, and written once it answers again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { history, query, ids, retained } = setup();
    query.mockRejectedValueOnce(unavailable()).mockRejectedValueOnce(unavailable());
    const reads = [row(), row(), row()];
    for (const r of reads) await history.record(r, { durable: false });
    const refusedWrite = row({ status: 'NOT_FOUND' });
    await history.record(refusedWrite, { durable: true });
    await history.flush();
    expect(history.retainedRows).toBe(4);
    expect(retained.at(-1)).toBe(4);
    expect(ids()).toEqual([]);
    // The database answers again: the kept rows are written, oldest first, and none is lost.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(history.retainedRows).toBe(0);
    expect(retained.at(-1)).toBe(0);
    expect(ids().map(String).sort(byText)).toEqual(
      [...reads, refusedWrite].map((r) => r.id).sort(byText),
    );
    expect(error).not.toHaveBeenCalled();
  });

  it('keeps trying while the database stays away, and only past the bound drops the oldest (counted)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { history, query, ids, dropped } = setup();
    const realQuery = query.getMockImplementation()!;
    let down = true;
    query.mockImplementation(async (sql, params) => {
      if (down) throw unavailable();
      return realQuery(sql, params);
    });
    const rows = Array.from({ length: HISTORY_RETAINED_MAX + 5 }, () => row());
    for (const r of rows) await history.record(r, { durable: false });
    await history.flush();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(history.retainedRows).toBe(HISTORY_RETAINED_MAX);
    expect(dropped).toEqual({ retention_full: 5 });
    down = false;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(history.retainedRows).toBe(0);
    expect(ids()).toEqual(rows.slice(5).map((r) => r.id));
  });

  it('a clean shutdown writes the rows kept for the database', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { history, query, ids } = setup();
    query.mockRejectedValueOnce(unavailable());
    const kept = [row(), row()];
    for (const r of kept) await history.record(r, { durable: false });
    await history.flush();
    expect(history.retainedRows).toBe(2);
    await history.beforeApplicationShutdown();
    expect(ids()).toEqual(kept.map((r) => r.id));
    expect(history.retainedRows).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
