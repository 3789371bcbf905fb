/**
 * The one catalogue of every metric this service exports: name, type, help, label names, and, for
 * labels whose domain is closed, the complete list of values. `MetricsService` creates its metrics
 * from here, and the deploy test checks every metric name used by the dashboards and alert rules
 * against this file. Add a metric here first; never create one anywhere else.
 */

import { PARTITIONED_TABLES } from '@app/database';
import { TOOL_RESULT_CODES } from '@app/errors';
import {
  ERA_LABELS,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  rpcErrorCodeOf,
  TOOL_CALL_SUCCESS_STATUSES,
  UNCODED_TOOL_ERROR,
  type ToolCallStatus,
} from '@app/mcp-transport';

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricDefinition {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  readonly labelNames: readonly string[];
  /** Histograms only: bucket upper bounds in seconds. */
  readonly buckets?: readonly number[];
  /** Labels whose domain is closed, with every value they can take. */
  readonly labelValues?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Upper bounds (seconds) for calls that normally take 1–500 ms: fine steps through that range, and a
 * tail up to 10 s so a slow dependency still shows where it sits rather than in `+Inf`.
 */
/** The buckets the OpenTelemetry MCP conventions give `mcp.server.operation.duration`. */
export const MCP_OPERATION_BUCKETS_SECONDS = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
] as const;

export const LATENCY_BUCKETS_SECONDS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 0.75, 1, 2.5, 5, 10,
] as const;

/** The value used for any label value outside its allowed set (see `boundLabel`). */
export const UNKNOWN_LABEL_VALUE = 'unknown';

/**
 * Keeps a label value inside a known set: the value itself when `allowed` has it, else `'unknown'`.
 * Use it wherever a label value could come from outside (a tool name, a JSON-RPC method, an error
 * code from an envelope) so that no client can create unbounded time series.
 */
export function boundLabel<T extends string>(
  value: string | undefined,
  allowed: ReadonlySet<T>,
): T | typeof UNKNOWN_LABEL_VALUE {
  return value !== undefined && isAllowed(value, allowed) ? value : UNKNOWN_LABEL_VALUE;
}

function isAllowed<T extends string>(value: string, allowed: ReadonlySet<T>): value is T {
  const values: ReadonlySet<string> = allowed;
  return values.has(value);
}

/** The transport's era labels, and `unknown` for a body that is not one JSON-RPC message. */
export const MCP_ERAS = [...ERA_LABELS, 'unknown'] as const;
export type McpEra = (typeof MCP_ERAS)[number];

/**
 * How one MCP JSON-RPC message ended:
 * - `ok`: a result;
 * - `tool_error`: a result with `isError: true` (the caller can act on it);
 * - `input_required`: a 2026-07-28 `input_required` result (e.g. a confirmation was asked);
 * - `protocol_error`: a JSON-RPC error other than -32603;
 * - `internal_error`: JSON-RPC -32603 (an unexpected failure on our side);
 * - `notification`: a notification or response, accepted without a result (202).
 *
 * Refusals before the message is read are not requests: they count in
 * `mcp_transport_rejections_total`.
 */
export const MCP_REQUEST_OUTCOMES = [
  'ok',
  'tool_error',
  'input_required',
  'protocol_error',
  'internal_error',
  'notification',
] as const;
export type McpRequestOutcome = (typeof MCP_REQUEST_OUTCOMES)[number];

/**
 * The `status` label of `mcp_tool_calls_total`: a tool call's status (`ToolCallStatus`,
 * @app/mcp-transport) with a JSON-RPC error as its bare code. The error codes are the ones an
 * `isError` result carries (`TOOL_RESULT_CODES`); the JSON-RPC codes those a tool call can end in
 * (bad arguments, and anything unexpected). Anything else is `unknown`.
 */
const TOOL_CALL_RPC_CODES = [`${INVALID_PARAMS}`, `${INTERNAL_ERROR}`] as const;
export const TOOL_CALL_STATUSES = [
  ...TOOL_CALL_SUCCESS_STATUSES,
  ...TOOL_RESULT_CODES,
  UNCODED_TOOL_ERROR,
  ...TOOL_CALL_RPC_CODES,
  UNKNOWN_LABEL_VALUE,
] as const;
export type ToolCallStatusLabel = (typeof TOOL_CALL_STATUSES)[number];
export const TOOL_CALL_STATUS_SET: ReadonlySet<ToolCallStatusLabel> = new Set(TOOL_CALL_STATUSES);

/** The metric label of a tool call's status (see {@link TOOL_CALL_STATUSES}). */
export function toolCallStatusLabel(status: ToolCallStatus): ToolCallStatusLabel {
  return boundLabel(String(rpcErrorCodeOf(status) ?? status), TOOL_CALL_STATUS_SET);
}

/** What happened to a confirmation of a destructive tool. */
export const CONFIRMATION_OUTCOMES = [
  'asked',
  // `verified`: the person confirmed on this server's page (the retry then counts `consumed`).
  'verified',
  // `verified`: someone signed in as another person opened the page and was refused.
  'refused_other_person',
  'consumed',
  'declined',
  'replayed',
  'expired',
  'superseded',
  'refused_unavailable',
  'tampered',
] as const;
export type ConfirmationOutcome = (typeof CONFIRMATION_OUTCOMES)[number];

/**
 * Why `/mcp` refused a request before reading the JSON-RPC message: 401 without a token
 * (`unauthenticated`) or with a bad one (`invalid_token`), 403 (`origin_not_allowed`,
 * `host_not_allowed`), 429 per IP or per token (`rate_limited`), 413, 400 for a protocol revision
 * the server does not speak, 406, 415, 405 for a method no client should send
 * (`method_not_allowed`), and `optional_method`: GET (a server stream) or DELETE (a session end),
 * which the spec lets every client try and which a stateless server rightly answers 405. The
 * official SDKs and the Inspector send those in normal operation, so alerts ignore that reason.
 * `session_not_found`: a 2025 `Mcp-Session-Id` this server did not issue (404; after a signing key
 * is dropped, or replicas holding different keys).
 */
export const TRANSPORT_REJECTION_REASONS = [
  'unauthenticated',
  'invalid_token',
  'origin_not_allowed',
  'host_not_allowed',
  'rate_limited',
  'body_too_large',
  'unsupported_protocol_version',
  'not_acceptable',
  'unsupported_media_type',
  'method_not_allowed',
  'optional_method',
  'session_not_found',
] as const;
export type TransportRejectionReason = (typeof TRANSPORT_REJECTION_REASONS)[number];

export const DB_POOL_STATES = ['total', 'idle', 'waiting'] as const;
export type DbPoolState = (typeof DB_POOL_STATES)[number];

/**
 * The rate-limit budgets: per client IP before authentication, per token after it; and the
 * quotas of the sign-in and the authorization server (sign-in mails per address, client
 * registrations per IP and in total).
 */
export const RATE_LIMIT_BUDGETS = [
  'ip',
  'token',
  'sign_in_mail',
  'registration_ip',
  'registration_total',
] as const;
export type RateLimitBudget = (typeof RATE_LIMIT_BUDGETS)[number];

/**
 * Why a tool-call history row was lost: `retention_full`, the oldest of the rows kept while the
 * database did not answer, dropped past the bound; `refused`, a row the database refused itself.
 */
export const HISTORY_DROP_REASONS = ['retention_full', 'refused'] as const;
export type HistoryDropReason = (typeof HISTORY_DROP_REASONS)[number];

/** The time-partitioned history tables (the `table` label of the partition metrics). */
export const HISTORY_TABLES = PARTITIONED_TABLES.map((t) => t.table);

export const METRICS = {
  mcpRequests: {
    name: 'mcp_requests_total',
    type: 'counter',
    help: 'MCP JSON-RPC messages handled on /mcp, by protocol era, method and outcome.',
    labelNames: ['era', 'method', 'outcome'],
    labelValues: { era: MCP_ERAS, outcome: MCP_REQUEST_OUTCOMES },
  },
  mcpRequestDuration: {
    name: 'mcp_request_duration_seconds',
    type: 'histogram',
    help: 'Time to handle one MCP JSON-RPC message, by protocol era and method.',
    labelNames: ['era', 'method'],
    buckets: LATENCY_BUCKETS_SECONDS,
    labelValues: { era: MCP_ERAS },
  },
  mcpServerOperationDuration: {
    // The MCP semantic conventions' `mcp.server.operation.duration` in Prometheus form: its
    // attributes as labels (dots as underscores), its buckets; empty label = attribute absent.
    name: 'mcp_server_operation_duration_seconds',
    type: 'histogram',
    help: 'MCP request or notification duration as observed on the server (OpenTelemetry MCP semantic conventions).',
    labelNames: [
      'mcp_method_name',
      'gen_ai_tool_name',
      'gen_ai_operation_name',
      'mcp_protocol_version',
      'error_type',
      'rpc_response_status_code',
      'network_transport',
    ],
    buckets: MCP_OPERATION_BUCKETS_SECONDS,
  },
  mcpToolCalls: {
    name: 'mcp_tool_calls_total',
    type: 'counter',
    help: 'MCP tools/call executions, by tool and status (ok, input_required, error code, JSON-RPC code).',
    labelNames: ['tool', 'status'],
    labelValues: { status: TOOL_CALL_STATUSES },
  },
  mcpToolCallDuration: {
    name: 'mcp_tool_call_duration_seconds',
    type: 'histogram',
    help: 'Time to execute one MCP tools/call, checks and REST dispatch included, by tool.',
    labelNames: ['tool'],
    buckets: LATENCY_BUCKETS_SECONDS,
  },
  mcpConfirmations: {
    name: 'mcp_confirmations_total',
    type: 'counter',
    help: 'Confirmations of destructive tools, by outcome.',
    labelNames: ['outcome'],
    labelValues: { outcome: CONFIRMATION_OUTCOMES },
  },
  mcpTransportRejections: {
    name: 'mcp_transport_rejections_total',
    type: 'counter',
    help: 'Requests to /mcp refused before the JSON-RPC message was read, by reason.',
    labelNames: ['reason'],
    labelValues: { reason: TRANSPORT_REJECTION_REASONS },
  },
  httpRequests: {
    name: 'http_requests_total',
    type: 'counter',
    help: 'REST API responses, by route ("METHOD /pattern", or "unmatched") and HTTP status.',
    labelNames: ['route', 'status'],
  },
  httpRequestDuration: {
    name: 'http_request_duration_seconds',
    type: 'histogram',
    help: 'REST API response time, by route ("METHOD /pattern", or "unmatched").',
    labelNames: ['route'],
    buckets: LATENCY_BUCKETS_SECONDS,
  },
  rateLimitStoreFallbacks: {
    name: 'rate_limit_store_fallback_total',
    type: 'counter',
    help: 'Rate-limit decisions taken by this replica alone (in memory) because the shared store (Redis or Postgres) did not answer, by budget.',
    labelNames: ['budget'],
    labelValues: { budget: RATE_LIMIT_BUDGETS },
  },
  rateLimitStoreUp: {
    name: 'rate_limit_store_up',
    type: 'gauge',
    help: '1 while the shared rate-limit store answers (or the budgets live in this process), 0 while each replica keeps them in its own memory.',
    labelNames: [],
  },
  historyRowsRetained: {
    name: 'mcp_history_rows_retained',
    type: 'gauge',
    help: 'Tool-call history rows this replica keeps in memory because the database did not take them; written once it answers.',
    labelNames: [],
  },
  historyRowsDropped: {
    name: 'mcp_history_rows_dropped_total',
    type: 'counter',
    help: 'Tool-call history rows lost, by reason: the oldest kept rows past the bound (retention_full), or a row the database refused (refused).',
    labelNames: ['reason'],
    labelValues: { reason: HISTORY_DROP_REASONS },
  },
  historyPartitionsDropped: {
    name: 'history_partitions_dropped_total',
    type: 'counter',
    help: 'Partitions of a history table dropped because all their rows were older than its retention, by table.',
    labelNames: ['table'],
    labelValues: { table: HISTORY_TABLES },
  },
  historyPartitionAhead: {
    name: 'history_partition_ahead_seconds',
    type: 'gauge',
    help: 'Seconds from now to the end of the newest partition of a history table, by table: a row past it would be refused.',
    labelNames: ['table'],
    labelValues: { table: HISTORY_TABLES },
  },
  historyOldestData: {
    name: 'history_oldest_data_timestamp_seconds',
    type: 'gauge',
    help: 'Start of the oldest partition of a history table (nothing older is kept), Unix seconds, by table.',
    labelNames: ['table'],
    labelValues: { table: HISTORY_TABLES },
  },
  dbPoolConnections: {
    name: 'db_pool_connections',
    type: 'gauge',
    help: 'Postgres connection pool: total, idle, and callers waiting for a connection.',
    labelNames: ['state'],
    labelValues: { state: DB_POOL_STATES },
  },
} as const satisfies Record<string, MetricDefinition>;

export type MetricKey = keyof typeof METRICS;

/**
 * prom-client's default process and Node.js metrics, registered without a prefix. Dashboards and
 * alerts may use these names too; a unit test keeps this list equal to what prom-client registers.
 */
export const DEFAULT_PROCESS_METRIC_NAMES = [
  'process_cpu_user_seconds_total',
  'process_cpu_system_seconds_total',
  'process_cpu_seconds_total',
  'process_start_time_seconds',
  'process_resident_memory_bytes',
  'process_virtual_memory_bytes',
  'process_heap_bytes',
  'process_open_fds',
  'process_max_fds',
  'nodejs_eventloop_lag_seconds',
  'nodejs_eventloop_lag_min_seconds',
  'nodejs_eventloop_lag_max_seconds',
  'nodejs_eventloop_lag_mean_seconds',
  'nodejs_eventloop_lag_stddev_seconds',
  'nodejs_eventloop_lag_p50_seconds',
  'nodejs_eventloop_lag_p90_seconds',
  'nodejs_eventloop_lag_p99_seconds',
  'nodejs_active_resources',
  'nodejs_active_resources_total',
  'nodejs_active_handles',
  'nodejs_active_handles_total',
  'nodejs_active_requests',
  'nodejs_active_requests_total',
  'nodejs_heap_size_total_bytes',
  'nodejs_heap_size_used_bytes',
  'nodejs_external_memory_bytes',
  'nodejs_heap_space_size_total_bytes',
  'nodejs_heap_space_size_used_bytes',
  'nodejs_heap_space_size_available_bytes',
  'nodejs_version_info',
  'nodejs_gc_duration_seconds',
] as const;
