import { Injectable } from '@nestjs/common';
import {
  eraLabel,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  PARSE_ERROR,
  rpcErrorCodeOf,
  rpcErrorStatus,
  type McpObservation,
} from '@app/mcp-transport';
import { MetricsService, type McpEra, type McpRequestOutcome } from '@app/metrics';
import { ToolCatalog } from '@app/mcp-tools';
import { errorTypeOf } from './mcp-tracing.js';

const NOTIFICATION_PREFIX = 'notifications/';
const FRAMING_ERRORS: ReadonlySet<string> = new Set(
  [PARSE_ERROR, INVALID_REQUEST].map(rpcErrorStatus),
);

/**
 * The endpoint's `observe` hook → `mcp_requests_total` / `mcp_request_duration_seconds`. A
 * `tools/call` whose result is `isError` is still `ok` to the endpoint, which says so in the
 * observation (`toolError`), so it counts as `tool_error`. (No AsyncLocalStorage here: every
 * enabled storage costs every promise in the process a property write; docs/benchmarks.md.)
 */
@Injectable()
export class McpRequestMetrics {
  constructor(
    private readonly metrics: MetricsService,
    private readonly catalog: ToolCatalog,
  ) {}

  observe(event: McpObservation): void {
    if (event.outcome.startsWith('http_')) {
      // The HTTP refusals the endpoint itself makes (envelope, no JSON-RPC): a 2025
      // MCP-Protocol-Version it does not speak (400), a 2025 session id it did not issue (404).
      // Transport rejections, not handled messages.
      this.metrics.recordTransportRejection(
        event.outcome === 'http_404' ? 'session_not_found' : 'unsupported_protocol_version',
      );
      return;
    }
    this.metrics.recordMcpRequest(
      eraOf(event),
      event.method,
      this.outcomeLabel(event),
      event.durationMs / 1000,
    );
    const code = rpcErrorCodeOf(event.outcome);
    this.metrics.recordMcpServerOperation(
      {
        method: event.method,
        tool: this.knownTool(event.requestedTool),
        protocolVersion: event.protocolVersion === 'unknown' ? '' : event.protocolVersion,
        errorType: errorTypeOf(event) ?? '',
        statusCode: code === undefined ? '' : String(code),
      },
      event.durationMs / 1000,
      event.traceId,
    );
  }

  /** A tool name the registry has (a bounded label), else ''. */
  knownTool(name: string | undefined): string {
    if (name === undefined) return '';
    return this.catalog.get(name) !== undefined || this.catalog.extension(name) !== undefined
      ? name
      : '';
  }

  private outcomeLabel(event: McpObservation): McpRequestOutcome {
    const { outcome, method } = event;
    if (outcome === 'input_required') return 'input_required';
    if (outcome === 'ok') {
      // Notifications and (legacy) client responses are accepted with a 202; responses carry no
      // method, so their label is `unknown` (a request with an unknown method is an rpc_error).
      if (method === 'unknown' || method.startsWith(NOTIFICATION_PREFIX)) return 'notification';
      return event.toolError === true ? 'tool_error' : 'ok';
    }
    return outcome === rpcErrorStatus(INTERNAL_ERROR) ? 'internal_error' : 'protocol_error';
  }
}

function eraOf(event: McpObservation): McpEra {
  // A body that is not one JSON-RPC message (unparseable, batch, not an object) has no era.
  if (event.method === 'unknown' && FRAMING_ERRORS.has(event.outcome)) return 'unknown';
  return eraLabel(event.era);
}
