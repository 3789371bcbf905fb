import { register as globalRegistry, Registry, collectDefaultMetrics } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  boundLabel,
  DEFAULT_PROCESS_METRIC_NAMES,
  METRICS,
  TOOL_CALL_STATUS_SET,
  toolCallStatusLabel,
  type MetricDefinition,
} from './metrics.catalogue.js';
import { METRICS_CONTENT_TYPE, MetricsService } from './metrics.service.js';
import { TOOL_RESULT_CODES } from '@app/errors';
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  rpcErrorStatus,
  UNCODED_TOOL_ERROR,
  type ToolCallStatus,
} from '@app/mcp-transport';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition into samples (enough of the format for these tests). */
function samples(body: string): Sample[] {
  const out: Sample[] = [];
  for (const line of body.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) throw new Error(`unparseable sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]] = pair[2];
    }
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

function find(all: Sample[], name: string, labels: Record<string, string>): Sample | undefined {
  return all.find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}

/** The sample names of an exposition, once each, sorted. */
function seriesNames(body: string): string[] {
  const names = body
    .split('\n')
    .filter((l) => /^[a-z]/.test(l))
    .map((l) => l.split(/[{ ]/)[0]);
  return [...new Set(names)].sort();
}

function pool(body: string): Sample[] {
  return samples(body).filter((s) => s.name === 'db_pool_connections');
}

/** Records one sample in every catalogue metric through the public API. */
function recordOneOfEach(service: MetricsService): void {
  service.recordMcpRequest('2026-07-28', 'tools/call', 'ok', 0.012);
  service.recordMcpServerOperation(
    {
      method: 'tools/call',
      tool: 'list_accounts',
      protocolVersion: '2026-07-28',
      errorType: 'tool_error',
      statusCode: '',
    },
    0.012,
  );
  service.recordToolCall('delete_account', 'confirmation_unavailable', 0.03);
  service.recordConfirmation('refused_unavailable');
  service.recordTransportRejection('rate_limited');
  service.recordHttpRequest('GET /v1/accounts/:id', 404, 0.004);
  service.setPoolStatsSource(() => ({ total: 10, idle: 7, waiting: 2 }));
  service.recordRateLimitFallback('token');
  service.setRateLimitStoreUp(false);
  service.setHistoryRowsRetained(3);
  service.recordHistoryRowsDropped('retention_full', 2);
  service.recordHistoryPartitionDropped('mcp_tool_calls');
  service.setHistoryCoverage('audit_events', new Date(0), new Date(86_400_000), new Date(0));
}

const ALL_DEFINITIONS: readonly MetricDefinition[] = Object.values(METRICS);

describe('MetricsService', () => {
  it('keeps its metrics in a private registry and leaves the global registry untouched', async () => {
    const globalBefore = await globalRegistry.metrics();
    const a = new MetricsService();
    const b = new MetricsService(); // would throw "already registered" on a shared registry
    recordOneOfEach(a);
    recordOneOfEach(b);

    expect(await globalRegistry.metrics()).toBe(globalBefore);
    for (const def of ALL_DEFINITIONS) {
      expect(globalRegistry.getSingleMetric(def.name)).toBeUndefined();
    }
    // Each instance counts only its own recordings.
    b.recordConfirmation('refused_unavailable');
    const aSamples = samples((await a.render()).body);
    const bSamples = samples((await b.render()).body);
    expect(
      find(aSamples, 'mcp_confirmations_total', { outcome: 'refused_unavailable' })?.value,
    ).toBe(1);
    expect(
      find(bSamples, 'mcp_confirmations_total', { outcome: 'refused_unavailable' })?.value,
    ).toBe(2);
  });

  it('registers every catalogue entry with its type, help and exactly its label names', async () => {
    const service = new MetricsService();
    recordOneOfEach(service);
    const { body } = await service.render();
    const all = samples(body);

    for (const def of ALL_DEFINITIONS) {
      expect(body).toContain(`# HELP ${def.name} ${def.help}\n`);
      expect(body).toContain(`# TYPE ${def.name} ${def.type}\n`);
      const seriesName = def.type === 'histogram' ? `${def.name}_count` : def.name;
      const labelSets = all
        .filter((s) => s.name === seriesName)
        .map((s) => ({ metric: def.name, labels: Object.keys(s.labels).sort() }));
      expect(labelSets.length).toBeGreaterThan(0);
      expect(labelSets).toEqual(
        labelSets.map(() => ({ metric: def.name, labels: [...def.labelNames].sort() })),
      );
    }
  });

  it('renders in the Prometheus text format', async () => {
    const { contentType } = await new MetricsService().render();
    expect(contentType).toBe(METRICS_CONTENT_TYPE);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  describe('OpenMetrics (asked for by the scraper)', () => {
    const TRACE = '0af7651916cd43dd8448eb211c80319c';
    const operation = {
      method: 'tools/call',
      tool: 'list_accounts',
      protocolVersion: '2026-07-28',
      errorType: '',
      statusCode: '',
    };

    it('carries the MCP histogram’s exemplar (the trace id) on the bucket of the observation', async () => {
      const service = new MetricsService();
      service.recordMcpServerOperation(operation, 0.012, TRACE);
      const { contentType, body } = await service.render('openmetrics');
      expect(contentType).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
      expect(body.endsWith('\n# EOF\n')).toBe(true);
      const withExemplar = body.split('\n').filter((l) => l.includes(' # {'));
      expect(withExemplar).toHaveLength(1);
      expect(withExemplar[0]).toMatch(
        new RegExp(
          `^mcp_server_operation_duration_seconds_bucket\\{le="0\\.02",.*gen_ai_tool_name="list_accounts".*\\} 1 # \\{trace_id="${TRACE}"\\} 0\\.012 \\d+(\\.\\d+)?$`,
        ),
      );
    });

    it('names no exemplar for an untraced observation, and the Prometheus format never shows one', async () => {
      const service = new MetricsService();
      service.recordMcpServerOperation(operation, 0.012);
      expect(await service.render('openmetrics').then((r) => r.body)).not.toContain(' # {');
      service.recordMcpServerOperation(operation, 0.012, TRACE);
      expect((await service.render()).body).not.toContain(TRACE);
    });

    it('renders counters the OpenMetrics way without renaming them for the Prometheus format', async () => {
      const service = new MetricsService();
      service.recordMcpRequest('2026-07-28', 'tools/call', 'ok', 0.01);
      const open = (await service.render('openmetrics')).body;
      expect(open).toContain('# TYPE mcp_requests counter');
      expect(open).toContain(
        'mcp_requests_total{era="2026-07-28",method="tools/call",outcome="ok"} 1',
      );
      // After an OpenMetrics scrape, the next Prometheus scrape still has the counters' names.
      const text = (await service.render()).body;
      expect(text).toContain('# TYPE mcp_requests_total counter');
      expect(find(samples(text), 'mcp_requests_total', { outcome: 'ok' })?.value).toBe(1);
      // The same series in both formats (OpenMetrics adds only its EOF and exemplars).
      expect(seriesNames(open)).toEqual(seriesNames(text));
    });
  });

  it('shows recorded counts and durations in render()', async () => {
    const service = new MetricsService();
    service.recordMcpRequest('2025', 'tools/call', 'tool_error', 0.02);
    service.recordMcpRequest('2025', 'tools/call', 'tool_error', 0.3);
    service.recordToolCall('get_account', 'NOT_FOUND', 0.02);
    service.recordTransportRejection('origin_not_allowed');
    service.recordHttpRequest('POST /v1/accounts', 201, 0.2);
    const all = samples((await service.render()).body);

    const mcp = { era: '2025', method: 'tools/call' };
    expect(find(all, 'mcp_requests_total', { ...mcp, outcome: 'tool_error' })?.value).toBe(2);
    expect(find(all, 'mcp_request_duration_seconds_count', mcp)?.value).toBe(2);
    expect(find(all, 'mcp_request_duration_seconds_sum', mcp)?.value).toBeCloseTo(0.32);
    expect(find(all, 'mcp_request_duration_seconds_bucket', { ...mcp, le: '0.025' })?.value).toBe(
      1,
    );
    expect(find(all, 'mcp_request_duration_seconds_bucket', { ...mcp, le: '0.5' })?.value).toBe(2);
    expect(
      find(all, 'mcp_tool_calls_total', { tool: 'get_account', status: 'NOT_FOUND' })?.value,
    ).toBe(1);
    expect(find(all, 'mcp_tool_call_duration_seconds_count', { tool: 'get_account' })?.value).toBe(
      1,
    );
    expect(
      find(all, 'mcp_transport_rejections_total', { reason: 'origin_not_allowed' })?.value,
    ).toBe(1);
    expect(
      find(all, 'http_requests_total', { route: 'POST /v1/accounts', status: '201' })?.value,
    ).toBe(1);
    expect(
      find(all, 'http_request_duration_seconds_count', { route: 'POST /v1/accounts' })?.value,
    ).toBe(1);
  });

  it('uses buckets that resolve the 1–500 ms range', async () => {
    const service = new MetricsService();
    service.recordToolCall('list_accounts', 'ok', 0.05);
    const buckets = samples((await service.render()).body)
      .filter((s) => s.name === 'mcp_tool_call_duration_seconds_bucket')
      .map((s) => s.labels.le);
    const inRange = buckets.filter((le) => Number(le) >= 0.001 && Number(le) <= 0.5);
    expect(inRange.length).toBeGreaterThanOrEqual(8);
    expect(buckets).toContain('1');
    expect(buckets).toContain('+Inf');
  });

  it('never throws on a bad duration or status, and drops the observation', async () => {
    const service = new MetricsService();
    expect(() => service.recordToolCall('get_account', 'ok', Number.NaN)).not.toThrow();
    expect(() => service.recordHttpRequest('GET /v1/me', 9999, -1)).not.toThrow();
    const all = samples((await service.render()).body);
    expect(find(all, 'mcp_tool_calls_total', { tool: 'get_account', status: 'ok' })?.value).toBe(1);
    expect(
      find(all, 'mcp_tool_call_duration_seconds_count', { tool: 'get_account' }),
    ).toBeUndefined();
    expect(
      find(all, 'http_requests_total', { route: 'GET /v1/me', status: 'unknown' })?.value,
    ).toBe(1);
  });

  describe('db_pool_connections', () => {
    it('reads the pool source at each scrape', async () => {
      const service = new MetricsService();
      let waiting = 0;
      service.setPoolStatsSource(() => ({ total: 10, idle: 4, waiting }));

      let all = samples((await service.render()).body);
      expect(find(all, 'db_pool_connections', { state: 'total' })?.value).toBe(10);
      expect(find(all, 'db_pool_connections', { state: 'idle' })?.value).toBe(4);
      expect(find(all, 'db_pool_connections', { state: 'waiting' })?.value).toBe(0);

      waiting = 3;
      all = samples((await service.render()).body);
      expect(find(all, 'db_pool_connections', { state: 'waiting' })?.value).toBe(3);
    });

    it('is empty without a source, when the source has no pool, or when it throws', async () => {
      const service = new MetricsService();

      expect(pool((await service.render()).body)).toEqual([]);

      service.setPoolStatsSource(() => ({ total: 1, idle: 1, waiting: 0 }));
      expect(pool((await service.render()).body)).toHaveLength(3);

      service.setPoolStatsSource(() => undefined);
      expect(pool((await service.render()).body)).toEqual([]);

      service.setPoolStatsSource(() => {
        throw new Error('pool gone');
      });
      const { body } = await service.render();
      expect(pool(body)).toEqual([]);
      expect(body).toContain('# TYPE mcp_requests_total counter');
    });
  });

  it('exports prom-client default process metrics without a prefix, as the catalogue lists them', async () => {
    const names = new Set(samples((await new MetricsService().render()).body).map((s) => s.name));
    expect(names).toContain('process_cpu_user_seconds_total');
    expect(names).toContain('process_resident_memory_bytes');
    expect(names).toContain('nodejs_heap_size_used_bytes');

    const reference = new Registry();
    collectDefaultMetrics({ register: reference });
    const registered = (await reference.getMetricsAsJSON()).map((m) => m.name);
    const listed: ReadonlySet<string> = new Set(DEFAULT_PROCESS_METRIC_NAMES);
    expect(registered.filter((name) => !listed.has(name))).toEqual([]);
    // Some process metrics exist only on Linux; there, the list must be exactly what is registered.
    const notRegistered = [...listed].filter((name) => !registered.includes(name));
    expect(process.platform === 'linux' ? notRegistered : []).toEqual([]);
  });
});

describe('boundLabel', () => {
  const tools: ReadonlySet<string> = new Set(['get_account', 'list_accounts']);

  it('keeps a known value', () => {
    expect(boundLabel('get_account', tools)).toBe('get_account');
    expect(boundLabel('-32603', TOOL_CALL_STATUS_SET)).toBe('-32603');
  });

  it('maps an unknown, missing or look-alike value to "unknown"', () => {
    expect(boundLabel('drop_database', tools)).toBe('unknown');
    expect(boundLabel(undefined, tools)).toBe('unknown');
    expect(boundLabel('GET_ACCOUNT', tools)).toBe('unknown');
    expect(boundLabel('', tools)).toBe('unknown');
    expect(boundLabel('INTERNAL_ERROR', TOOL_CALL_STATUS_SET)).toBe('unknown');
  });
});

describe('toolCallStatusLabel: the label of every status a tool call can end in', () => {
  it('counts each under its own name, never as unknown', () => {
    const statuses: ToolCallStatus[] = [
      'ok',
      'input_required',
      UNCODED_TOOL_ERROR,
      ...TOOL_RESULT_CODES,
      rpcErrorStatus(INVALID_PARAMS),
      rpcErrorStatus(INTERNAL_ERROR),
    ];
    const unknown = statuses.filter((s) => toolCallStatusLabel(s) === 'unknown');
    expect(unknown).toEqual([]);
    expect(toolCallStatusLabel(rpcErrorStatus(INVALID_PARAMS))).toBe('-32602');
    expect(toolCallStatusLabel('SERVICE_UNAVAILABLE')).toBe('SERVICE_UNAVAILABLE');
  });

  it('bounds what is not a tool call status', () => {
    expect(toolCallStatusLabel('INTERNAL_ERROR')).toBe('unknown');
    expect(toolCallStatusLabel(rpcErrorStatus(-32700))).toBe('unknown');
  });
});
