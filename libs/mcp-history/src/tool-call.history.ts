import { setTimeout as delay } from 'node:timers/promises';
import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { argumentsDigest, normalizeClientString } from '@app/common';
import { isDatabaseUnavailable, withDatabaseDeadline } from '@app/database';
import { MetricsService } from '@app/metrics';
import { outsideTraces } from '@app/tracing';
import type { EraLabel } from '@app/mcp-transport';

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
  /** The id the server issued for the request: the call's link to its audit events. */
  requestId: string;
  /** The trace the call ran in (32 hex digits), or null when nothing was traced. */
  traceId: string | null;
  /** The client's own `X-Request-Id`, a correlation field only. */
  correlationId: string | null;
  /** The approval request the call ran under or was refused for (policy `approval`), if any. */
  approvalId: string | null;
  /** Digested here; never stored or logged as they are. */
  args: Record<string, unknown> | undefined;
}

export const HISTORY_BATCH_SIZE = 100;
export const HISTORY_FLUSH_INTERVAL_MS = 250;
/** Pause before a failed batch is written again, row by row (a pool reconnect, a failover). */
const RETRY_DELAY_MS = 100;

/** One `mcp_tool_calls` row as the insert binds it (column order of {@link TOOL_CALLS_INSERT}). */
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
  traceId: string | null,
  correlationId: string | null,
  approvalId: string | null,
];

/**
 * Every row of a batch in one statement: one array parameter per column, `unnest` zips them back
 * into rows (one round trip and one plan whatever the batch size). `created_at` is the time the
 * call was received, not the time of the insert. Exported for the history benchmark, which times
 * this very statement.
 */
export const TOOL_CALLS_INSERT = `INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, client_name, era,
    protocol_version, status, is_error, duration_ms, confirmation_id, request_id, arguments_digest, created_at,
    trace_id, correlation_id, approval_id)
  SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[],
    $8::text[], $9::text[], $10::boolean[], $11::float8[], $12::uuid[], $13::text[], $14::text[], $15::timestamptz[],
    $16::text[], $17::text[], $18::uuid[])`;

/** At most this many rows wait in memory for the database; past it the oldest are dropped. */
export const HISTORY_RETAINED_MAX = 10_000;
/** Database time one background write (a batch, a retry, the flush at shutdown) may wait. */
const WRITE_BUDGET_MS = 5_000;
/** Kept rows are written again after this, doubling up to the maximum while the database is away. */
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 10_000;

/**
 * The MCP call history. A write tool's row commits in the write's own transaction
 * ({@link recordIn}, through the audit trail); other rows that must be in before the result
 * returns (`durable`) are inserted directly; read calls are buffered and written in batches (every
 * 250 ms or 100 rows), one `INSERT … SELECT * FROM unnest(…)` each. Rows are made storable before
 * they are queued (client strings normalised); a batch the database refuses is written again row
 * by row, so one bad row never costs the others theirs.
 *
 * A row the database cannot take now (it is down or did not answer in time) is kept in memory, up
 * to {@link HISTORY_RETAINED_MAX} rows (past that the oldest go, counted), and written again every
 * 1–10 s until the database answers; `mcp_history_rows_retained` says how many wait. On shutdown
 * the buffer and the kept rows are written, and calls still finishing while the server drains are
 * written directly, so none is lost on a graceful stop while the database answers.
 */
@Injectable()
export class ToolCallHistory implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ToolCallHistory.name);
  private buffer: StoredRow[] = [];
  private retained: StoredRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelayMs = RETRY_MIN_MS;
  private flushing: Promise<void> = Promise.resolve();
  private shuttingDown = false;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly metrics: MetricsService,
  ) {}

  /** The row, in the caller's transaction: it commits or rolls back with what that transaction holds. */
  async recordIn(tx: EntityManager, row: ToolCallRow): Promise<void> {
    await this.insert([toStoredRow(row)], tx);
  }

  /**
   * `durable`: inserted before this resolves (kept for later if the database cannot take it now).
   * `alongside`: more writes that must commit with the row or not at all (e.g. the confirmation
   * pointing at the call), in the row's transaction; implies `durable`.
   */
  async record(
    row: ToolCallRow,
    options: { durable: boolean; alongside?: (tx: EntityManager) => Promise<unknown> },
  ): Promise<void> {
    const stored = toStoredRow(row);
    const { alongside } = options;
    if (alongside !== undefined || options.durable || this.shuttingDown) {
      try {
        if (alongside === undefined) await this.insert([stored]);
        else
          await this.ds.transaction(async (tx) => {
            await this.insert([stored], tx);
            await alongside(tx);
          });
      } catch (err) {
        if (!isDatabaseUnavailable(err)) throw err;
        // The row waits for the database; what went with it (the confirmation's pointer to the
        // call) does not, and is said so.
        if (alongside !== undefined)
          this.logger.warn(
            { toolCallId: row.id, requestId: row.requestId },
            'tool-call history row kept without its confirmation link: the database did not answer',
          );
        this.retain([stored], err);
      }
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
    // A background write with a deadline of its own, not the request's that queued the rows, and
    // in no request's trace.
    this.flushing = this.flushing.then(() =>
      outsideTraces(() => withDatabaseDeadline(WRITE_BUDGET_MS, () => this.write(batch))),
    );
    return this.flushing;
  }

  /** How many rows wait in memory for the database. */
  get retainedRows(): number {
    return this.retained.length;
  }

  /**
   * Writes the buffer and the kept rows; calls recorded after this (in-flight requests while
   * draining) are written directly. Rows the database still cannot take are lost, and said so.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.shuttingDown = true;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.flush();
    await this.writeRetained();
    if (this.retained.length > 0) {
      this.logger.error(
        { rows: this.retained.length },
        'tool-call history rows lost at shutdown: the database did not take them',
      );
      this.metrics.recordHistoryRowsDropped('retention_full', this.retained.length);
    }
  }

  /**
   * Inserts a batch. The database away: the rows are kept for later. The batch refused: waits a
   * moment and inserts its rows one by one, so a row the database refuses is the only one lost
   * (logged by id and request id, never its data). Never throws: history must not fail the calls
   * it records.
   */
  private async write(batch: StoredRow[]): Promise<void> {
    if (batch.length === 0) return;
    try {
      await this.insert(batch);
      return;
    } catch (err) {
      if (isDatabaseUnavailable(err)) {
        this.retain(batch, err);
        return;
      }
      this.logger.warn(
        { err, rows: batch.length },
        'tool-call history batch failed; retrying row by row',
      );
    }
    await delay(RETRY_DELAY_MS);
    for (const [i, row] of batch.entries()) {
      try {
        await this.insert([row]);
      } catch (err) {
        if (isDatabaseUnavailable(err)) {
          this.retain(batch.slice(i), err);
          return;
        }
        this.metrics.recordHistoryRowsDropped('refused', 1);
        this.logger.error(
          { err, toolCallId: row[0], requestId: row[12] },
          'tool-call history row lost: the database refused it',
        );
      }
    }
  }

  /** Keeps `rows` (oldest first) for a later write; past the bound the oldest kept rows go. */
  private retain(rows: readonly StoredRow[], err: unknown): void {
    if (this.retained.length === 0)
      this.logger.warn(
        { err, rows: rows.length },
        'tool-call history rows kept in memory until the database answers',
      );
    this.retained.push(...rows);
    const excess = this.retained.length - HISTORY_RETAINED_MAX;
    if (excess > 0) {
      this.retained.splice(0, excess);
      this.metrics.recordHistoryRowsDropped('retention_full', excess);
      this.logger.error(
        { rows: excess, kept: HISTORY_RETAINED_MAX },
        'tool-call history rows lost: more rows waited for the database than this replica keeps',
      );
    }
    this.metrics.setHistoryRowsRetained(this.retained.length);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.retryTimer !== undefined || this.shuttingDown || this.retained.length === 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.flushing = this.flushing.then(() => outsideTraces(() => this.writeRetained()));
    }, this.retryDelayMs);
    this.retryTimer.unref();
  }

  /** Writes the kept rows, a batch at a time, oldest first, until the database stops taking them. */
  private async writeRetained(): Promise<void> {
    const before = this.retained.length;
    while (this.retained.length > 0) {
      const batch = this.retained.slice(0, HISTORY_BATCH_SIZE);
      try {
        await withDatabaseDeadline(WRITE_BUDGET_MS, () => this.insert(batch));
      } catch (err) {
        if (!isDatabaseUnavailable(err)) {
          // A batch the database refuses: row by row, the refused ones lost (said and counted).
          this.retained.splice(0, batch.length);
          this.metrics.setHistoryRowsRetained(this.retained.length);
          await withDatabaseDeadline(WRITE_BUDGET_MS, () => this.write(batch));
          continue;
        }
        this.retryDelayMs = Math.min(this.retryDelayMs * 2, RETRY_MAX_MS);
        this.scheduleRetry();
        return;
      }
      this.retained.splice(0, batch.length);
      this.metrics.setHistoryRowsRetained(this.retained.length);
    }
    this.retryDelayMs = RETRY_MIN_MS;
    if (before > 0)
      this.logger.log({ rows: before }, 'tool-call history rows kept in memory are written');
  }

  private async insert(rows: readonly StoredRow[], tx?: EntityManager): Promise<void> {
    const columns = rows[0]?.map((_, i) => rows.map((r) => r[i])) ?? [];
    await (tx ?? this.ds).query(TOOL_CALLS_INSERT, columns);
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
    row.traceId,
    row.correlationId === null ? null : normalizeClientString(row.correlationId) || null,
    row.approvalId,
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
