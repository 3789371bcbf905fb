/**
 * Dashboards, alert rules, Prometheus and Grafana provisioning against the metric catalogue: every
 * metric (and label) used in PromQL must exist there, so a typo in a dashboard or an alert rule
 * fails here. No Prometheus or Grafana is needed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { join } from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  read,
  validateDatasources,
  validateProviders,
  loadYaml,
  k8sFiles,
  BASE_DIR,
  OVERLAY_DIR,
} from './support/deploy-schemas.js';
import {
  selectorsOf,
  CATALOGUE,
  defaultMetricTypes,
  promqlProblems,
  alertExprs,
  jsonExprs,
  hostPortOf,
  mountTarget,
  missingFrom,
  services,
  SERVER_PORT,
  alertRules,
  prometheus,
  DASHBOARD_PATH,
  dashboard,
  dashboardExprs,
  operationsAnchors,
} from './support/deploy-checks.js';

beforeAll(async () => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const m of await registry.getMetricsAsJSON()) defaultMetricTypes.set(m.name, String(m.type));
});

describe('PromQL checker (guards the checks below against passing vacuously)', () => {
  it('finds metric names and matchers, not functions, grouping labels, strings or variables', () => {
    expect(
      selectorsOf(
        'histogram_quantile(0.99, sum by (le, tool) (rate(mcp_tool_call_duration_seconds_bucket{tool="a",le!="x"}[$__rate_interval]))) > 1 and on (tool) sum without (instance) (up) unless foo offset 5m',
      ),
    ).toEqual([
      {
        name: 'mcp_tool_call_duration_seconds_bucket',
        matchers: [
          { label: 'tool', op: '=', value: 'a' },
          { label: 'le', op: '!=', value: 'x' },
        ],
      },
      { name: 'up', matchers: [] },
      { name: 'foo', matchers: [] },
    ]);
    expect(selectorsOf('{__name__="mcp_requests_total", era="2025"}')).toEqual([
      { name: 'mcp_requests_total', matchers: [{ label: 'era', op: '=', value: '2025' }] },
    ]);
  });

  it.each([
    ['a typo in a metric name', 'sum(rate(mcp_tool_cals_total[5m]))'],
    ['a made-up metric', 'http_request_total'],
    ['a histogram suffix on a counter', 'rate(mcp_requests_total_count[5m])'],
    ['an unknown label', 'mcp_tool_calls_total{stauts="ok"}'],
    ['a closed label value typo', 'mcp_confirmations_total{outcome="refused_unavaliable"}'],
    [
      'a typo inside an alternation',
      'mcp_tool_calls_total{status=~"-32603|EXTERNAL_SERVICE_EROR"}',
    ],
    ['a negative matcher typo', 'mcp_tool_calls_total{status!~"ok|input_requried"}'],
    ['a regex matching no value', 'mcp_transport_rejections_total{reason=~"rate_.*d_x"}'],
    ['a default metric typo', 'process_resident_memroy_bytes'],
    ['no metric at all', 'vector(1)'],
  ])('reports %s', (_what, expr) => {
    expect(promqlProblems(expr)).not.toEqual([]);
  });

  it('accepts catalogue metrics, histogram series, default process metrics and target labels', () => {
    const exprs = [
      'sum by (le) (rate(mcp_request_duration_seconds_bucket{era="2026-07-28",le="0.5"}[5m]))',
      'mcp_request_duration_seconds_sum / mcp_request_duration_seconds_count',
      'db_pool_connections{state="waiting",job="mcp-server",instance=~".+"}',
      'rate(process_cpu_seconds_total[1m]) + nodejs_gc_duration_seconds_count',
      'http_requests_total{status=~"5.."}',
      'mcp_transport_rejections_total{reason=~"rate_.*"}',
    ];
    expect(exprs.flatMap(promqlProblems)).toEqual([]);
  });

  it('fails on the real alert rules and dashboard when any catalogue metric name is misspelt', () => {
    const files = [
      { text: read('deploy/prometheus/alerts.yml'), exprsOf: alertExprs },
      { text: read(DASHBOARD_PATH), exprsOf: jsonExprs },
    ];
    const undetected: string[] = [];
    let mutations = 0;
    for (const def of CATALOGUE.values()) {
      const typo = def.name.replace(/_(\w)/, '_$1$1'); // e.g. mcp_rrequests_total
      for (const { text, exprsOf } of files.filter((f) => f.text.includes(def.name))) {
        mutations++;
        const problems = exprsOf(text.replaceAll(def.name, typo)).flatMap(promqlProblems);
        if (!problems.some((p) => p.includes(typo))) undetected.push(typo);
      }
    }
    expect(undetected).toEqual([]);
    expect(mutations).toBeGreaterThanOrEqual(CATALOGUE.size);
  });
});

describe('metric names in dashboards and alert rules', () => {
  it('alert rules use only catalogued metrics, labels and label values', () => {
    expect(alertRules.length).toBeGreaterThan(0);
    expect(alertRules.flatMap((r) => promqlProblems(r.expr))).toEqual([]);
  });

  it('the dashboard uses only catalogued metrics, labels and label values', () => {
    expect(dashboardExprs.length).toBeGreaterThan(0);
    expect(dashboardExprs.flatMap(promqlProblems)).toEqual([]);
  });

  it('the dashboard shows every catalogued metric, and process CPU and memory', () => {
    const used = new Set(
      dashboardExprs.flatMap((e) =>
        selectorsOf(e).map((s) => s.name.replace(/_(bucket|sum|count)$/, '')),
      ),
    );
    expect(
      missingFrom(used, [
        ...CATALOGUE.keys(),
        'process_cpu_seconds_total',
        'process_resident_memory_bytes',
      ]),
    ).toEqual([]);
  });

  it('`job` matchers name the scrape job', () => {
    const jobs = new Set(prometheus.scrape_configs.map((s) => s.job_name));
    const jobValues = [...alertRules.map((r) => r.expr), ...dashboardExprs]
      .flatMap(selectorsOf)
      .flatMap((s) => s.matchers)
      .filter((m) => m.label === 'job')
      .map((m) => m.value);
    expect(jobValues.length).toBeGreaterThan(0);
    expect(missingFrom(jobs, jobValues)).toEqual([]);
  });
});

describe('Prometheus alert rules', () => {
  it('every alert has a unique name, `for`, a severity, a summary, a description and a runbook link', () => {
    const names = alertRules.map((r) => r.alert);
    expect(new Set(names).size).toBe(names.length);
    const incomplete = alertRules
      .filter(
        (r) =>
          !/^[A-Z][A-Za-z0-9]+$/.test(r.alert) ||
          !/^\d+[smh]$/.test(r.for ?? '') ||
          !['critical', 'warning'].includes(r.labels?.severity ?? '') ||
          !r.annotations?.summary ||
          !r.annotations.description ||
          !/^docs\/operations\.md#[a-z0-9-]+$/.test(r.annotations.runbook_url ?? ''),
      )
      .map((r) => r.alert);
    expect(incomplete).toEqual([]);
  });

  it('every runbook_url anchor is a heading of docs/operations.md', () => {
    const anchors = alertRules.map(
      (r) => r.annotations?.runbook_url?.split('#')[1] ?? `(${r.alert})`,
    );
    expect(missingFrom(operationsAnchors, anchors)).toEqual([]);
  });

  it('covers the required conditions', () => {
    const selectors = alertRules.flatMap((r) => selectorsOf(r.expr));
    const uses = (name: string, label?: string, value?: string): boolean =>
      selectors.some(
        (s) =>
          s.name === name &&
          (label === undefined ||
            s.matchers.some((m) => m.label === label && m.value.split('|').includes(value ?? ''))),
      );
    const exprs = alertRules.map((r) => r.expr);

    expect({
      toolCallErrorRatio: uses('mcp_tool_calls_total', 'status', '-32603'),
      mcpP99: exprs.some((e) =>
        /histogram_quantile\(0\.99,[^]*mcp_request_duration_seconds_bucket/.test(e),
      ),
      confirmationUnavailableToolStatus: uses(
        'mcp_tool_calls_total',
        'status',
        'confirmation_unavailable',
      ),
      confirmationRefusedUnavailable: uses(
        'mcp_confirmations_total',
        'outcome',
        'refused_unavailable',
      ),
      transportRejectionsByReason: exprs.some((e) =>
        /by \(reason\)[^]*mcp_transport_rejections_total/.test(e),
      ),
      targetDown: uses('up'),
      dbPoolWaiting: uses('db_pool_connections', 'state', 'waiting'),
    }).toEqual({
      toolCallErrorRatio: true,
      mcpP99: true,
      confirmationUnavailableToolStatus: true,
      confirmationRefusedUnavailable: true,
      transportRejectionsByReason: true,
      targetDown: true,
      dbPoolWaiting: true,
    });
  });

  it('every docs/operations.md#anchor mentioned in deploy files exists', () => {
    const files = [
      'docker-compose.yml',
      'Dockerfile',
      ...k8sFiles().map((f) => `${BASE_DIR}/${f}`),
      ...readdirSync(join(ROOT, OVERLAY_DIR)).map((f) => `${OVERLAY_DIR}/${f}`),
      'deploy/prometheus/alerts.yml',
      'deploy/prometheus/prometheus.yml',
    ];
    const anchors = files.flatMap((f) =>
      [...read(f).matchAll(/docs\/operations\.md#([\w-]+)/g)].map((m) => m[1]),
    );
    expect(anchors.length).toBeGreaterThan(alertRules.length);
    expect(missingFrom(operationsAnchors, anchors)).toEqual([]);
  });
});

describe('Prometheus config', () => {
  it('loads the alert rules from files that exist beside it', () => {
    const ruleFiles = prometheus.rule_files ?? [];
    expect(ruleFiles).toContain('alerts.yml');
    expect(ruleFiles.filter((f) => !existsSync(join(ROOT, 'deploy/prometheus', f)))).toEqual([]);
  });

  it('scrapes the server service on its port at /metrics', () => {
    const job = prometheus.scrape_configs.find((s) => s.job_name === 'mcp-server');
    expect(job?.metrics_path ?? '/metrics').toBe('/metrics');
    expect(job?.static_configs?.flatMap((c) => c.targets)).toEqual([`server:${SERVER_PORT}`]);
  });

  it('is mounted where the compose command line looks for it', () => {
    const target = mountTarget(services.prometheus, 'deploy/prometheus');
    expect(target).toBeDefined();
    const p = services.prometheus;
    const command = Array.isArray(p?.command) ? p.command : (p?.command ?? '').split(/\s+/);
    expect(command).toContain(`--config.file=${target}/prometheus.yml`);
  });
});

describe('Grafana provisioning', () => {
  const dir = 'deploy/grafana/provisioning';
  const datasources = readdirSync(join(ROOT, dir, 'datasources')).flatMap(
    (f) => loadYaml(validateDatasources, `${dir}/datasources/${f}`).datasources,
  );
  const providers = readdirSync(join(ROOT, dir, 'dashboards')).flatMap(
    (f) => loadYaml(validateProviders, `${dir}/dashboards/${f}`).providers,
  );

  it('provisions a Prometheus datasource pointing at the prometheus service', () => {
    expect(datasources.find((d) => d.type === 'prometheus')?.url).toMatch(
      /^http:\/\/prometheus:9090\/?$/,
    );
    expect((services.prometheus?.ports ?? []).map(hostPortOf).map((p) => p.target)).toContain(9090);
  });

  it('shows exemplars: Prometheus keeps them, the datasource links their trace_id, a panel asks for them', () => {
    const p = services.prometheus;
    const command = Array.isArray(p?.command) ? p.command : (p?.command ?? '').split(/\s+/);
    expect(command).toContain('--enable-feature=exemplar-storage');
    const raw: {
      datasources: {
        type: string;
        jsonData?: { exemplarTraceIdDestinations?: { name: string; url: string }[] };
      }[];
    } = parse(readFileSync(join(ROOT, dir, 'datasources/prometheus.yml'), 'utf8'));
    const destinations = raw.datasources.find((d) => d.type === 'prometheus')?.jsonData
      ?.exemplarTraceIdDestinations;
    expect(destinations?.map((d) => d.name)).toEqual(['trace_id']);
    // `$$` is Grafana provisioning's literal `$`: the link gets the exemplar's value.
    expect(destinations?.[0]?.url).toContain('/trace/$${__value.raw}');
    const exemplarTargets = dashboard.panels.flatMap((panel) =>
      ((panel as { targets?: { expr: string; exemplar?: boolean }[] }).targets ?? []).filter(
        (t) => t.exemplar === true,
      ),
    );
    expect(exemplarTargets.map((t) => t.expr).join(' ')).toContain(
      'mcp_server_operation_duration_seconds_bucket',
    );
  });

  it('dashboard panels use only provisioned datasources', () => {
    const used = [
      ...JSON.stringify(dashboard).matchAll(
        /"datasource":\{"type":"prometheus","uid":"([^"]+)"\}/g,
      ),
    ].map((m) => m[1]);
    expect(used.length).toBeGreaterThan(0);
    expect(missingFrom(new Set(datasources.map((d) => d.uid)), used)).toEqual([]);
  });

  it('loads dashboards from the folder compose mounts deploy/grafana/dashboards on', () => {
    const target = mountTarget(services.grafana, 'deploy/grafana/dashboards');
    expect(target).toBeDefined();
    expect(providers.map((p) => p.options.path)).toContain(target);
    expect(mountTarget(services.grafana, 'deploy/grafana/provisioning')).toBe(
      '/etc/grafana/provisioning',
    );
  });

  it('dashboard panels have unique ids, and every panel a query', () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const withoutQuery = dashboard.panels.filter(
      (p) => p.type !== 'row' && (p.targets ?? []).length === 0,
    );
    expect(withoutQuery.map((p) => p.id)).toEqual([]);
  });
});
