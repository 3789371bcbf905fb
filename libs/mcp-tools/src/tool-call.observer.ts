import { Injectable, Logger } from '@nestjs/common';
import { MetricsService } from '@app/metrics';
import {
  eraLabel,
  isErrorResultStatus,
  type McpRequestContext,
  type ToolCallStatus,
} from '@app/mcp-transport';
import { ConfirmationService } from '@app/mcp-confirmations';
import type { EntityManager } from 'typeorm';
import { ToolCallHistory, type ToolCallRow } from '@app/mcp-history';
import { currentTraceId, inSpanAsync } from '@app/tracing';
import { clientNameOf, type McpCallExtra } from './mcp-call-extra.js';

/** The history write of a `tools/call` (buffered for a read: the span then ends at the hand-over). */
const SPAN_HISTORY_WRITE = 'mcp.history.write';

/** One finished `tools/call`, as the log line, the history and the metrics see it. */
export interface ToolCallOutcome {
  id: string;
  /** The tool name when it exists in the registry; `null` for an unknown tool. */
  tool: string | null;
  /** The name the client asked for, normalised (log and history keep it for an unknown tool). */
  attemptedTool: string;
  /** When the call was received (RFC 3339 with microseconds). */
  receivedAt: string;
  ctx: McpRequestContext;
  extra: McpCallExtra;
  status: ToolCallStatus;
  confirmationId: string | null;
  /** The approval request the call ran under or was refused for (policy `approval`), if any. */
  approvalId: string | null;
  args: Record<string, unknown> | undefined;
  readOnly: boolean;
  /** This call used up its confirmation (the person accepted; the tool was dispatched). */
  consumedConfirmation: boolean;
  durationMs: number;
}

/**
 * The one choke point after every tools/call: exactly one structured log line (no secrets, no
 * arguments), one history row, and the tool-call metrics.
 */
@Injectable()
export class ToolCallObserver {
  private readonly logger = new Logger('ToolCall');

  constructor(
    private readonly metrics: MetricsService,
    private readonly history: ToolCallHistory,
    private readonly confirmations: ConfirmationService,
  ) {}

  /**
   * A write tool's history row, in the write's own transaction (with the confirmation pointing at
   * the call): the call's row, its change and its audit event commit together or not at all.
   */
  async recordWithWrite(o: ToolCallOutcome, tx: EntityManager): Promise<void> {
    await inSpanAsync(SPAN_HISTORY_WRITE, () => this.history.recordIn(tx, this.rowOf(o)));
    if (o.consumedConfirmation && o.confirmationId !== null)
      await this.confirmations.attachToolCall(o.confirmationId, o.id, tx);
  }

  /** `historyWritten`: the row already committed with the call's write ({@link recordWithWrite}). */
  async completed(
    o: ToolCallOutcome,
    options: { historyWritten: boolean } = { historyWritten: false },
  ): Promise<void> {
    const p = o.extra.principal;
    const client = clientNameOf(o.ctx, o.extra);
    const isError = isErrorResultStatus(o.status);
    this.logger.log({
      msg: 'tools/call',
      tool: o.tool ?? o.attemptedTool,
      org: p.organizationId,
      token: p.tokenId,
      user: p.userId,
      client,
      era: eraLabel(o.ctx.era),
      protocolVersion: o.ctx.protocolVersion,
      status: o.status,
      isError,
      durationMs: Math.round(o.durationMs * 100) / 100,
      confirmation: o.confirmationId,
      ...(o.approvalId === null ? {} : { approval: o.approvalId }),
      requestId: o.extra.requestId,
      ...(o.extra.correlationId === null ? {} : { correlationId: o.extra.correlationId }),
    });
    this.metrics.recordToolCall(o.tool ?? 'unknown', o.status, o.durationMs / 1000);
    if (options.historyWritten) return;
    const confirmationId = o.consumedConfirmation ? o.confirmationId : null;
    try {
      await inSpanAsync(SPAN_HISTORY_WRITE, () =>
        this.history.record(this.rowOf(o), {
          durable: !o.readOnly,
          // The confirmation points at the call it authorized (GET /v1/mcp/confirmations/{id}),
          // written with the call's row: both or neither.
          alongside:
            confirmationId === null
              ? undefined
              : (tx) => this.confirmations.attachToolCall(confirmationId, o.id, tx),
        }),
      );
    } catch (err) {
      // The call's own answer stands: replacing it with an internal error would hide what
      // happened (a write that was made, or a refusal such as confirmation_unavailable when the
      // database stopped taking writes). The loss is logged with the request id.
      this.logger.error(
        { err, requestId: o.extra.requestId, toolCallId: o.id, tool: o.tool ?? 'unknown' },
        'could not record the tool-call history row',
      );
    }
  }

  private rowOf(o: ToolCallOutcome): ToolCallRow {
    const p = o.extra.principal;
    return {
      id: o.id,
      organizationId: p.organizationId,
      tokenId: p.tokenId,
      userId: p.userId,
      tool: o.tool ?? o.attemptedTool,
      clientName: clientNameOf(o.ctx, o.extra),
      era: eraLabel(o.ctx.era),
      protocolVersion: o.ctx.protocolVersion,
      status: o.status,
      isError: isErrorResultStatus(o.status),
      receivedAt: o.receivedAt,
      durationMs: o.durationMs,
      confirmationId: o.confirmationId,
      requestId: o.extra.requestId,
      // The call's span is the active one here, the write tool's row too (it is written inside
      // the dispatch): the row leads to the call's trace.
      traceId: currentTraceId(),
      correlationId: o.extra.correlationId,
      approvalId: o.approvalId,
      args: o.args,
    };
  }
}
