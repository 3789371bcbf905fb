import { setTimeout as delay } from 'node:timers/promises';
import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { argumentsDigest } from '@app/mcp-confirmations';
import { ToolCallEntity } from './tool-call.entity.js';

export interface ToolCallRow {
  id: string;
  organizationId: string;
  tokenId: string;
  userId: string;
  tool: string;
  clientName: string | null;
  era: '2025' | '2026-07-28';
  protocolVersion: string;
  status: string;
  isError: boolean;
  durationMs: number;
  confirmationId: string | null;
  requestId: string;
  /** Digested here; never stored or logged as they are. */
  args: Record<string, unknown> | undefined;
}

export const HISTORY_BATCH_SIZE = 100;
export const HISTORY_FLUSH_INTERVAL_MS = 250;
/** Pause before the one retry of a failed batch (a pool reconnect, a failover). */
const RETRY_DELAY_MS = 100;

/**
 * The MCP call history. Calls that changed something (`durable`) are committed before their
 * result is returned; read calls are buffered and written in small batches (every 250 ms or 100
 * rows). A failed batch is logged and retried once. On shutdown the buffer is flushed, and calls
 * still finishing while the server drains are written directly, so none is lost on a graceful stop.
 */
@Injectable()
export class ToolCallHistory implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ToolCallHistory.name);
  private buffer: ToolCallEntity[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private shuttingDown = false;

  constructor(
    @InjectRepository(ToolCallEntity) private readonly calls: Repository<ToolCallEntity>,
  ) {}

  async record(row: ToolCallRow, options: { durable: boolean }): Promise<void> {
    const entity = this.toEntity(row);
    if (options.durable || this.shuttingDown) {
      await this.calls.insert(entity);
      return;
    }
    this.buffer.push(entity);
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

  /** Inserts a batch, retrying once; never throws (history must not fail the calls it records). */
  private async write(batch: ToolCallEntity[]): Promise<void> {
    if (batch.length === 0) return;
    try {
      await this.calls.insert(batch);
      return;
    } catch (err) {
      this.logger.warn(
        { err, rows: batch.length },
        'tool-call history batch failed; retrying once',
      );
    }
    await delay(RETRY_DELAY_MS);
    try {
      await this.calls.insert(batch);
    } catch (err) {
      this.logger.error(
        { err, rows: batch.length },
        'tool-call history batch lost: the retry failed too',
      );
    }
  }

  private toEntity(row: ToolCallRow): ToolCallEntity {
    const { args, ...rest } = row;
    return this.calls.create({
      ...rest,
      argumentsDigest: args === undefined ? null : safeDigest(args),
    });
  }
}

/** The digest of the arguments, or null when they cannot be digested (not JSON data, too deep). */
function safeDigest(args: Record<string, unknown>): string | null {
  try {
    return argumentsDigest(args);
  } catch {
    return null;
  }
}
