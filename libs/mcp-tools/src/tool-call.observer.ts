import { Injectable, Logger } from '@nestjs/common';
import {
  MetricsService,
  TOOL_CALL_STATUS_SET,
  boundLabel,
  type ToolCallStatus,
} from '@app/metrics';
import type { McpRequestContext } from '@app/mcp-transport';
import { ToolCallHistory } from '@app/mcp-history';
import type { McpCallExtra } from './mcp-call-extra.js';

/** One finished `tools/call`, as the log line, the history and the metrics see it. */
export interface ToolCallOutcome {
  id: string;
  /** The tool name when it exists in the registry; `null` for an unknown tool. */
  tool: string | null;
  ctx: McpRequestContext;
  extra: McpCallExtra;
  /** `ok`, `input_required`, the isError code, or `rpc_error:<code>`. */
  status: string;
  confirmationId: string | null;
  args: Record<string, unknown> | undefined;
  readOnly: boolean;
  durationMs: number;
}

const RESULT_STATUSES = new Set(['ok', 'input_required']);

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
  ) {}

  async completed(o: ToolCallOutcome): Promise<void> {
    const p = o.extra.principal;
    const client = o.ctx.clientInfo?.name ?? p.clientName;
    const isError = !RESULT_STATUSES.has(o.status) && !o.status.startsWith('rpc_error:');
    this.logger.log({
      msg: 'tools/call',
      tool: o.tool ?? 'unknown',
      org: p.organizationId,
      token: p.tokenId,
      user: p.userId,
      client: client ?? null,
      era: o.ctx.era === 'modern' ? '2026-07-28' : '2025',
      protocolVersion: o.ctx.protocolVersion,
      status: o.status,
      isError,
      durationMs: Math.round(o.durationMs * 100) / 100,
      confirmation: o.confirmationId,
      requestId: o.extra.requestId,
    });
    const metricStatus: ToolCallStatus = boundLabel(
      o.status.startsWith('rpc_error:') ? o.status.slice('rpc_error:'.length) : o.status,
      TOOL_CALL_STATUS_SET,
    );
    this.metrics.recordToolCall(o.tool ?? 'unknown', metricStatus, o.durationMs / 1000);
    await this.history.record(
      {
        id: o.id,
        organizationId: p.organizationId,
        tokenId: p.tokenId,
        userId: p.userId,
        tool: o.tool ?? 'unknown',
        clientName: client ?? null,
        era: o.ctx.era === 'modern' ? '2026-07-28' : '2025',
        protocolVersion: o.ctx.protocolVersion,
        status: o.status,
        isError,
        durationMs: o.durationMs,
        confirmationId: o.confirmationId,
        requestId: o.extra.requestId,
        args: o.args,
      },
      { durable: !o.readOnly },
    );
  }
}
