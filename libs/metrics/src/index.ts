export {
  boundLabel,
  CONFIRMATION_OUTCOMES,
  DB_POOL_STATES,
  HISTORY_DROP_REASONS,
  HISTORY_TABLES,
  DEFAULT_PROCESS_METRIC_NAMES,
  LATENCY_BUCKETS_SECONDS,
  MCP_ERAS,
  MCP_REQUEST_OUTCOMES,
  RATE_LIMIT_BUDGETS,
  METRICS,
  TOOL_CALL_STATUS_SET,
  TOOL_CALL_STATUSES,
  toolCallStatusLabel,
  TRANSPORT_REJECTION_REASONS,
  UNKNOWN_LABEL_VALUE,
  type ConfirmationOutcome,
  type DbPoolState,
  type HistoryDropReason,
  type McpEra,
  type McpRequestOutcome,
  type MetricDefinition,
  type MetricKey,
  type MetricType,
  type RateLimitBudget,
  type ToolCallStatusLabel,
  type TransportRejectionReason,
} from './metrics.catalogue.js';
export {
  METRICS_CONTENT_TYPE,
  MetricsService,
  type PoolStats,
  type PoolStatsSource,
} from './metrics.service.js';
export { MetricsController } from './metrics.controller.js';
export { MetricsModule } from './metrics.module.js';
export { httpRouteLabel, registerHttpMetrics, UNMATCHED_ROUTE } from './http-metrics.hook.js';
