import { setTimeout as delay } from 'node:timers/promises';
import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { argumentsDigest } from '@app/common';
import { normalizeClientString, type EraLabel } from '@app/mcp-transport';

export interface ToolCallRow {
  id: string;
  organizationId: string;
  tokenId: string;
  userId: string;
  /** The tool's name, or the name a client asked for when no such tool exists (normalised here). */
  tool: string;
  /** As the client reported it (normalised here too). */
  clientName: string | null;
  era: EraLabel;
  protocolVersion: string;
  status: string;
  isError: boolean;
  /** When the call was received (RFC 3339 with microseconds): the row's time and its order. */
  receivedAt: string;
  durationMs: number;
  confirmationId: string | null;
  requestId: string;
  /** Digested here; never stored or logged as they are. */
  args: Record<string, unknown> | undefined;
}

export const HISTORY_BATCH_SIZE = 100;
export const HISTORY_FLUSH_INTERVAL_MS = 250;
/** Pause before a failed batch is written again, row by row (a pool reconnect, a failover). */
const RETRY_DELAY_MS = 100;

/** One `mcp_tool_calls` row as the insert binds it (column order of {@link INSERT_ROWS}). */
type StoredRow = [
  id: string,
  organizationId: string,
  tokenId: string,
  userId: string,
  tool: string,
  clientName: string | null,
  era: string,
  protocolVersion: string,
  status: string,
  isError: boolean,
  durationMs: number,
  confirmationId: string | null,
  requestId: string,
  argumentsDigest: string | null,
  receivedAt: string,
];

/**
 * Every row of a batch in one statement: one array parameter per column, `unnest` zips them back
 * into rows (one round trip and one plan whatever the batch size). `created_at` is the time the
 * call was received, not the time of the insert.
 */
const INSERT_ROWS = `INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, client_name, era,
    protocol_version, status, is_error, duration_ms, confirmation_id, request_id, arguments_digest, created_at)
  SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[],
    $8::text[], $9::text[], $10::boolean[], $11::float8[], $12::uuid[], $13::text[], $14::text[], $15::timestamptz[])`;

/**
 * The MCP call history. Calls that changed something (`durable`) are committed before their
 * result is returned; read calls are buffered and written in batches (every 250 ms or 100 rows),
 * one `INSERT … SELECT * FROM unnest(…)` each. Rows are made storable before they are queued
 * (client strings normalised), and a batch that fails anyway is written again row by row, so one
 * bad row never costs the others theirs. On shutdown the buffer is flushed, and calls still
 * finishing while the server drains are written directly, so none is lost on a graceful stop.
 */
@Injectable()
export class ToolCallHistory implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ToolCallHistory.name);
  private buffer: StoredRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private shuttingDown = false;

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * `durable`: committed before this resolves. `alongside`: more writes that must commit with the
   * row or not at all (e.g. the confirmation pointing at the call), in the row's transaction;
   * implies `durable`.
   */
  async record(
    row: ToolCallRow,
    options: { durable: boolean; alongside?: (tx: EntityManager) => Promise<unknown> },
  ): Promise<void> {
    const stored = toStoredRow(row);
    const { alongside } = options;
    if (alongside !== undefined) {
      await this.ds.transaction(async (tx) => {
        await this.insert([stored], tx);
        await alongside(tx);
      });
      return;
    }
    if (options.durable || this.shuttingDown) {
      await this.insert([stored]);
      return;
    }
    this.buffer.push(stored);
    if (this.buffer.length >= HISTORY_BATCH_SIZE) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), HISTORY_FLUSH_INTERVAL_MS);
  }

  /** Writes whatever is buffered. Safe to call concurrently; the writes are serialised. */
  flush(): Promise<void> {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = this.flushing.then(() => this.write(batch));
    return this.flushing;
  }

  /** Flushes the buffer; calls recorded after this (in-flight requests while draining) are written directly. */
  async beforeApplicationShutdown(): Promise<void> {
    this.shuttingDown = true;
    await this.flush();
  }

  /**
   * Inserts a batch; if that fails, waits a moment and inserts its rows one by one, so a row the
   * database refuses is the only one lost (logged by id and request id, never its data). Never
   * throws: history must not fail the calls it records.
   */
  private async write(batch: StoredRow[]): Promise<void> {
    if (batch.length === 0) return;
    try {
      await this.insert(batch);
      return;
    } catch (err) {
      this.logger.warn(
        { err, rows: batch.length },
        'tool-call history batch failed; retrying row by row',
      );
    }
    await delay(RETRY_DELAY_MS);
    let lost = 0;
    for (const row of batch) {
      try {
        await this.insert([row]);
      } catch (err) {
        lost++;
        this.logger.error(
          { err, toolCallId: row[0], requestId: row[12] },
          'tool-call history row lost: the database refused it',
        );
      }
    }
    if (lost > 0) this.logger.error({ rows: batch.length, lost }, 'tool-call history rows lost');
  }

  private async insert(rows: readonly StoredRow[], tx?: EntityManager): Promise<void> {
    const columns = rows[0]?.map((_, i) => rows.map((r) => r[i])) ?? [];
    await (tx ?? this.ds).query(INSERT_ROWS, columns);
  }
}

function toStoredRow(row: ToolCallRow): StoredRow {
  return [
    row.id,
    row.organizationId,
    row.tokenId,
    row.userId,
    normalizeClientString(row.tool) || 'unknown',
    row.clientName === null ? null : normalizeClientString(row.clientName) || null,
    row.era,
    normalizeClientString(row.protocolVersion),
    normalizeClientString(row.status),
    row.isError,
    row.durationMs,
    row.confirmationId,
    normalizeClientString(row.requestId),
    row.args === undefined ? null : safeDigest(row.args),
    row.receivedAt,
  ];
}

/** The digest of the arguments, or null when they cannot be digested (not JSON data, too deep). */
function safeDigest(args: Record<string, unknown>): string | null {
  try {
    return argumentsDigest(args);
  } catch {
    return null;
  }
}
