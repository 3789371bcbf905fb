import { Injectable } from '@nestjs/common';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type Metric,
  type OpenMetricsContentType,
} from 'prom-client';
import type { ToolCallStatus } from '@app/mcp-transport';
import {
  METRICS,
  toolCallStatusLabel,
  type ConfirmationOutcome,
  type McpEra,
  type McpRequestOutcome,
  type MetricDefinition,
  type HistoryDropReason,
  type RateLimitBudget,
  type TransportRejectionReason,
} from './metrics.catalogue.js';

/** A snapshot of the database connection pool, read at scrape time. */
export interface PoolStats {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
}

/** Returns the pool's current numbers, or `undefined` when there is no pool (yet). */
export type PoolStatsSource = () => PoolStats | undefined;

/** The Prometheus text exposition format, as served on `/metrics` by default. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** OpenMetrics 1.0, served on `/metrics` to a scraper that asks for it: it carries exemplars. */
export const OPENMETRICS_CONTENT_TYPE = Registry.OPENMETRICS_CONTENT_TYPE;

/** The exposition formats `/metrics` speaks. */
export type MetricsFormat = 'prometheus' | 'openmetrics';

type LabelsOf<D extends MetricDefinition> = D['labelNames'][number];

/**
 * Owns a private prom-client registry (never the global one) holding every metric of the
 * catalogue plus prom-client's default process metrics. Callers record through the typed methods
 * below, at choke points only; label values of closed domains are typed unions, and open ones
 * (tool, method, route) must be bounded by the caller (see `boundLabel`). Recording never throws.
 */
@Injectable()
export class MetricsService {
  private readonly registry = new Registry();
  private poolStatsSource: PoolStatsSource | undefined;

  private readonly mcpRequests = this.counter(METRICS.mcpRequests);
  private readonly mcpRequestDuration = this.histogram(METRICS.mcpRequestDuration);
  /** With exemplars: each bucket keeps the trace id of its latest sampled observation. */
  private readonly mcpServerOperationDuration = this.histogram(METRICS.mcpServerOperationDuration, {
    exemplars: true,
  });
  private readonly mcpToolCalls = this.counter(METRICS.mcpToolCalls);
  private readonly mcpToolCallDuration = this.histogram(METRICS.mcpToolCallDuration);
  private readonly mcpConfirmations = this.counter(METRICS.mcpConfirmations);
  private readonly mcpTransportRejections = this.counter(METRICS.mcpTransportRejections);
  private readonly httpRequests = this.counter(METRICS.httpRequests);
  private readonly httpRequestDuration = this.histogram(METRICS.httpRequestDuration);
  private readonly rateLimitStoreFallbacks = this.counter(METRICS.rateLimitStoreFallbacks);
  private readonly rateLimitStoreUp = new Gauge({
    name: METRICS.rateLimitStoreUp.name,
    help: METRICS.rateLimitStoreUp.help,
    registers: [this.registry],
  });
  private readonly historyRowsRetained = new Gauge({
    name: METRICS.historyRowsRetained.name,
    help: METRICS.historyRowsRetained.help,
    registers: [this.registry],
  });
  private readonly historyRowsDropped = this.counter(METRICS.historyRowsDropped);
  private readonly historyPartitionsDropped = this.counter(METRICS.historyPartitionsDropped);
  private readonly historyPartitionAhead = this.gauge(METRICS.historyPartitionAhead);
  private readonly historyOldestData = this.gauge(METRICS.historyOldestData);
  private readonly dbPoolConnections = new Gauge<LabelsOf<typeof METRICS.dbPoolConnections>>({
    name: METRICS.dbPoolConnections.name,
    help: METRICS.dbPoolConnections.help,
    labelNames: METRICS.dbPoolConnections.labelNames,
    registers: [this.registry],
    collect: () => this.collectPoolStats(),
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** One MCP JSON-RPC message handled on `/mcp`. */
  recordMcpRequest(era: McpEra, method: string, outcome: McpRequestOutcome, seconds: number): void {
    this.mcpRequests.inc({ era, method, outcome });
    observe(this.mcpRequestDuration, { era, method }, seconds);
  }

  /**
   * One MCP message in the conventions' histogram. Every value must be bounded by the caller: a
   * method label, a registered tool name (or ''), a supported revision, an error type of our own.
   */
  recordMcpServerOperation(
    labels: {
      method: string;
      tool: string;
      protocolVersion: string;
      errorType: string;
      statusCode: string;
    },
    seconds: number,
    traceId?: string,
  ): void {
    observeWithTrace(
      this.mcpServerOperationDuration,
      {
        mcp_method_name: labels.method,
        gen_ai_tool_name: labels.tool,
        gen_ai_operation_name: labels.method === 'tools/call' ? 'execute_tool' : '',
        mcp_protocol_version: labels.protocolVersion,
        error_type: labels.errorType,
        rpc_response_status_code: labels.statusCode,
        network_transport: 'tcp',
      },
      seconds,
      traceId,
    );
  }

  /** One tools/call, after it finished (whatever its status). `tool` must be a registered name or `'unknown'`. */
  recordToolCall(tool: string, status: ToolCallStatus, seconds: number): void {
    this.mcpToolCalls.inc({ tool, status: toolCallStatusLabel(status) });
    observe(this.mcpToolCallDuration, { tool }, seconds);
  }

  recordConfirmation(outcome: ConfirmationOutcome): void {
    this.mcpConfirmations.inc({ outcome });
  }

  recordTransportRejection(reason: TransportRejectionReason): void {
    this.mcpTransportRejections.inc({ reason });
  }

  /** One REST response. `route` is the matched route pattern, never the raw URL. */
  recordHttpRequest(route: string, status: number, seconds: number): void {
    const statusLabel =
      Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : 'unknown';
    this.httpRequests.inc({ route, status: statusLabel });
    observe(this.httpRequestDuration, { route }, seconds);
  }

  /** One rate-limit decision this replica took alone because the shared store did not answer. */
  recordRateLimitFallback(budget: RateLimitBudget): void {
    this.rateLimitStoreFallbacks.inc({ budget });
  }

  /** Whether the shared rate-limit store currently answers. */
  setRateLimitStoreUp(up: boolean): void {
    this.rateLimitStoreUp.set(up ? 1 : 0);
  }

  /** How many tool-call history rows wait in memory for the database. */
  setHistoryRowsRetained(rows: number): void {
    this.historyRowsRetained.set(rows);
  }

  /** Tool-call history rows lost, and why. */
  recordHistoryRowsDropped(reason: HistoryDropReason, rows: number): void {
    this.historyRowsDropped.inc({ reason }, rows);
  }

  /** One partition of a history table dropped by retention. */
  recordHistoryPartitionDropped(table: string): void {
    this.historyPartitionsDropped.inc({ table });
  }

  /** What a history table covers: its oldest partition's start and its newest partition's end. */
  setHistoryCoverage(
    table: string,
    oldestFrom: Date | undefined,
    aheadUntil: Date | undefined,
    now: Date,
  ): void {
    if (oldestFrom === undefined) this.historyOldestData.remove({ table });
    else this.historyOldestData.set({ table }, oldestFrom.getTime() / 1000);
    if (aheadUntil === undefined) this.historyPartitionAhead.remove({ table });
    else this.historyPartitionAhead.set({ table }, (aheadUntil.getTime() - now.getTime()) / 1000);
  }

  /**
   * Where `db_pool_connections` reads its numbers at each scrape (the database lib passes a reader
   * of its pool). Replaces any earlier source; `undefined` output leaves the gauge empty.
   */
  setPoolStatsSource(source: PoolStatsSource | undefined): void {
    this.poolStatsSource = source;
  }

  /**
   * The exposition of every metric in this service's registry, for `GET /metrics`: the Prometheus
   * text format, or OpenMetrics (the same series, with the exemplars) when the scraper asked for it.
   */
  async render(
    format: MetricsFormat = 'prometheus',
  ): Promise<{ contentType: string; body: string }> {
    if (format === 'prometheus')
      return { contentType: this.registry.contentType, body: await this.registry.metrics() };
    return { contentType: OPENMETRICS_CONTENT_TYPE, body: await this.openMetrics().metrics() };
  }

  private collectPoolStats(): void {
    this.dbPoolConnections.reset();
    let stats: PoolStats | undefined;
    try {
      stats = this.poolStatsSource?.();
    } catch {
      // A failing reader must not fail the scrape: the gauge is simply absent this time.
      return;
    }
    if (stats === undefined) return;
    this.dbPoolConnections.set({ state: 'total' }, stats.total);
    this.dbPoolConnections.set({ state: 'idle' }, stats.idle);
    this.dbPoolConnections.set({ state: 'waiting' }, stats.waiting);
  }

  private counter<D extends MetricDefinition & { type: 'counter' }>(def: D): Counter<LabelsOf<D>> {
    return new Counter<LabelsOf<D>>({
      name: def.name,
      help: def.help,
      labelNames: def.labelNames,
      registers: [this.registry],
    });
  }

  private gauge<D extends MetricDefinition & { type: 'gauge' }>(def: D): Gauge<LabelsOf<D>> {
    return new Gauge<LabelsOf<D>>({
      name: def.name,
      help: def.help,
      labelNames: def.labelNames,
      registers: [this.registry],
    });
  }

  private histogram<D extends MetricDefinition & { type: 'histogram' }>(
    def: D,
    options: { exemplars?: boolean } = {},
  ): Histogram<LabelsOf<D>> {
    const exemplars = options.exemplars === true;
    const histogram = new Histogram<LabelsOf<D>>({
      name: def.name,
      help: def.help,
      labelNames: def.labelNames,
      buckets: def.buckets === undefined ? undefined : [...def.buckets],
      enableExemplars: exemplars,
      // prom-client refuses exemplars on a Prometheus-format registry, although that format simply
      // leaves them out: registered by hand, the one registry serves both formats.
      registers: exemplars ? [] : [this.registry],
    });
    if (exemplars) this.registry.registerMetric(histogram);
    return histogram;
  }

  /**
   * An OpenMetrics registry over the same metrics (nothing is recorded twice). prom-client renders
   * a counter in OpenMetrics by renaming the metric itself (`foo_total` becomes `foo`, its samples
   * `foo_total`), which would break the Prometheus format of a shared metric: each metric is seen
   * through a view that carries the OpenMetrics name and reads the metric's values.
   */
  private openMetrics(): Registry<OpenMetricsContentType> {
    const registry = new Registry<OpenMetricsContentType>();
    registry.setContentType(OPENMETRICS_CONTENT_TYPE);
    for (const header of this.registry.getMetricsAsArray()) {
      const metric = this.registry.getSingleMetric(header.name);
      if (metric !== undefined) registry.registerMetric(openMetricsView(header, metric));
    }
    return registry;
  }
}

/** What an exposition says of a metric besides its values. */
interface MetricHeader {
  name: string;
  help: string;
  /** `'counter'`, `'gauge'`, … at run time (prom-client's typings say a numeric enum). */
  type: unknown;
}

/** The values of one metric, as prom-client's registry reads them. */
type MetricData = Awaited<ReturnType<Metric['get']>>;

/**
 * A metric as an OpenMetrics registry renders it: its name (a counter's without `_total`) and its
 * values, read from the metric (a histogram's bucket lines with their exemplars).
 */
function openMetricsView(header: MetricHeader, metric: Metric): Metric {
  const name = header.type === 'counter' ? header.name.replace(/_total$/, '') : header.name;
  // `get` gives the values as the metric's own rendering does (a histogram's with their exemplars).
  const read = async (): Promise<MetricData> => ({ ...(await metric.get()), name });
  const view = { name, help: header.help, type: header.type, get: read };
  // prom-client's registry reads only these members of a metric (name, type, help and the values
  // through `get`): the view has them, without the metric's recording methods.
  // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- a duck-typed view, see above
  return view as unknown as Metric;
}

/** {@link observe} for a histogram with exemplars: the trace id, when given, is the bucket's exemplar. */
function observeWithTrace<T extends string>(
  histogram: Histogram<T>,
  labels: Partial<Record<T, string>>,
  seconds: number,
  traceId: string | undefined,
): void {
  if (!Number.isFinite(seconds) || seconds < 0) return;
  // An exemplar's labels are its own (OpenMetrics), not the histogram's: prom-client types them
  // as the histogram's label names.
  // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- see above
  const exemplarLabels = (traceId === undefined ? {} : { trace_id: traceId }) as Partial<
    Record<T, string>
  >;
  histogram.observe({ labels, value: seconds, exemplarLabels });
}

/** Durations that are not a finite, non-negative number are dropped rather than thrown on. */
function observe<T extends string>(
  histogram: Histogram<T>,
  labels: Partial<Record<T, string>>,
  seconds: number,
): void {
  if (Number.isFinite(seconds) && seconds >= 0) histogram.observe(labels, seconds);
}
