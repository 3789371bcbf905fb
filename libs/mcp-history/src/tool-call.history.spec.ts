import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { Repository } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ToolCallEntity } from './tool-call.entity.js';
import {
  HISTORY_BATCH_SIZE,
  HISTORY_FLUSH_INTERVAL_MS,
  ToolCallHistory,
  type ToolCallRow,
} from './tool-call.history.js';

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
    durationMs: 1.5,
    confirmationId: null,
    requestId: 'req-1',
    args: { q: 'x' },
    ...over,
  };
}

/** The history over a fake TypeORM repository whose `insert` the test controls. */
function setup() {
  const inserted: ToolCallEntity[][] = [];
  const insert = vi.fn<(rows: ToolCallEntity | ToolCallEntity[]) => Promise<object>>(
    async (rows) => {
      inserted.push(Array.isArray(rows) ? rows : [rows]);
      return Promise.resolve({});
    },
  );
  const repo = {
    create: (v: Partial<ToolCallEntity>) => Object.assign(new ToolCallEntity(), v),
    insert,
  };
  // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- a test double for the two methods the history uses
  const history = new ToolCallHistory(repo as unknown as Repository<ToolCallEntity>);
  const ids = (): string[] => inserted.flat().map((e) => e.id);
  return { history, insert, inserted, ids };
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
    const { history, inserted } = setup();
    const r = row();
    await history.record(r, { durable: true });
    expect(inserted).toHaveLength(1);
    expect(inserted[0][0]).toMatchObject({
      id: r.id,
      argumentsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(inserted[0][0]).not.toHaveProperty('args');
  });

  it('buffers read rows and writes them in one batch when the flush interval elapses', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { history, inserted, ids } = setup();
    const rows = [row(), row(), row()];
    for (const r of rows) await history.record(r, { durable: false });
    await vi.advanceTimersByTimeAsync(HISTORY_FLUSH_INTERVAL_MS - 1);
    expect(inserted).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(inserted).toHaveLength(1);
    expect(ids()).toEqual(rows.map((r) => r.id));
  });

  it(`writes at once when ${HISTORY_BATCH_SIZE} rows are buffered`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { history, inserted } = setup();
    for (let i = 0; i < HISTORY_BATCH_SIZE; i++) await history.record(row(), { durable: false });
    await vi.advanceTimersByTimeAsync(0);
    expect(inserted.map((b) => b.length)).toEqual([HISTORY_BATCH_SIZE]);
  });

  it('a failed batch is logged and retried once; nothing is lost', async () => {
    const { history, insert, inserted, ids } = setup();
    insert.mockRejectedValueOnce(new Error('connection reset'));
    const rows = [row(), row()];
    for (const r of rows) await history.record(r, { durable: false });
    await history.flush();
    expect(insert).toHaveBeenCalledTimes(2);
    expect(inserted).toHaveLength(1);
    expect(ids()).toEqual(rows.map((r) => r.id));
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ rows: 2 }),
      expect.stringContaining('retrying once'),
    );
    expect(error).not.toHaveBeenCalled();
  });

  it('a batch whose retry fails too is logged as lost and does not fail the caller', async () => {
    const { history, insert } = setup();
    insert.mockRejectedValueOnce(new Error('down')).mockRejectedValueOnce(new Error('still down'));
    await history.record(row(), { durable: false });
    await expect(history.flush()).resolves.toBeUndefined();
    expect(insert).toHaveBeenCalledTimes(2);
    expect(error).toHaveBeenCalledWith(
      expect.objectContaining({ rows: 1 }),
      expect.stringContaining('lost'),
    );
  });

  it('shutdown flushes the buffer; rows recorded while draining are written directly', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { history, inserted, ids } = setup();
    const buffered = [row(), row()];
    for (const r of buffered) await history.record(r, { durable: false });
    await history.beforeApplicationShutdown();
    expect(ids()).toEqual(buffered.map((r) => r.id));
    const late = row();
    await history.record(late, { durable: false });
    expect(ids()).toContain(late.id);
    expect(vi.getTimerCount()).toBe(0);
    expect(inserted).toHaveLength(2);
  });
});
