import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
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

/** The Prometheus text exposition format, as served on `/metrics`. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

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
  private readonly mcpServerOperationDuration = this.histogram(METRICS.mcpServerOperationDuration);
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
  ): void {
    observe(
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

  /** The exposition of every metric in this service's registry, for `GET /metrics`. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
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
  ): Histogram<LabelsOf<D>> {
    return new Histogram<LabelsOf<D>>({
      name: def.name,
      help: def.help,
      labelNames: def.labelNames,
      buckets: def.buckets === undefined ? undefined : [...def.buckets],
      registers: [this.registry],
    });
  }
}

/** Durations that are not a finite, non-negative number are dropped rather than thrown on. */
function observe<T extends string>(
  histogram: Histogram<T>,
  labels: Partial<Record<T, string>>,
  seconds: number,
): void {
  if (Number.isFinite(seconds) && seconds >= 0) histogram.observe(labels, seconds);
}
