/**
 * The monitoring proven against the real thing: Prometheus's own `promtool` checks the config and
 * the alert rules and runs the alerts' unit tests (deploy/prometheus/alerts.test.yml), then a real
 * Prometheus on loopback (temporary storage, bounded run) scrapes the BUILT server through a
 * scripted session, and every PromQL expression of the Grafana dashboard and of the alert rules is
 * evaluated through its HTTP API: each must return a result without error, the key panels must
 * show data, and every rule must evaluate healthy. The server traces (to an OTLP receiver of the
 * test's own) and Prometheus keeps exemplars, as in compose: Prometheus asks for OpenMetrics, and
 * the dashboard's exemplar panel finds the traced calls' trace ids.
 *
 * Needs Debian's `prometheus` package (`promtool` and `prometheus` on PATH). Where it is missing
 * the tests are skipped with a message saying so, unless `OPS_REQUIRE_PROMETHEUS=true` (CI), where
 * a missing tool fails the run instead.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort, startBuiltServer, type BuiltServer } from '../support/built-server.js';
import type { Json } from '../support/mcp-peers.js';
import { randomHex, startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { legacyToolCall, modernToolCall } from '../support/raw-mcp.js';
import { skipWhen } from '../support/skip.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PROMETHEUS_DIR = join(ROOT, 'deploy/prometheus');
const DASHBOARD = join(ROOT, 'deploy/grafana/dashboards/mcp-server.json');

function onPath(tool: string): boolean {
  return spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;
}
const MISSING = ['promtool', 'prometheus'].filter((tool) => !onPath(tool));
const REQUIRED = process.env.OPS_REQUIRE_PROMETHEUS === 'true';
/** CI sets OPS_REQUIRE_PROMETHEUS, so there the missing tools fail the first test instead. */
const PROMETHEUS_MISSING =
  MISSING.length > 0 &&
  !REQUIRED &&
  `${MISSING.join(' and ')} not on PATH: apt-get install prometheus (Debian) to run these`;

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: PROMETHEUS_DIR, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

interface AlertRule {
  alert: string;
  expr: string;
}
interface AlertsFile {
  groups: { name: string; rules: AlertRule[] }[];
}
interface RuleTest {
  name?: string;
  alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[];
}
function alertRules(): AlertRule[] {
  const file: Json = parse(readFileSync(join(PROMETHEUS_DIR, 'alerts.yml'), 'utf8'));
  const groups: AlertsFile['groups'] = file.groups;
  return groups.flatMap((g) => g.rules);
}

interface Panel {
  id: number;
  title: string;
  type: string;
  targets?: { expr: string; exemplar?: boolean }[];
}
function dashboardPanels(): Panel[] {
  const dashboard: Json = JSON.parse(readFileSync(DASHBOARD, 'utf8'));
  return dashboard.panels;
}

describe('Prometheus config and alert rules', skipWhen(PROMETHEUS_MISSING), () => {
  it('the tools are installed', () => {
    expect(MISSING, 'install Debian\'s "prometheus" package').toEqual([]);
  });

  it('promtool check config and check rules pass', () => {
    const config = promtool('check', 'config', 'prometheus.yml');
    expect(config.output).toContain('SUCCESS');
    expect(config.status, config.output).toBe(0);
    const rules = promtool('check', 'rules', 'alerts.yml');
    expect(rules.status, rules.output).toBe(0);
    expect(rules.output).toContain(`SUCCESS: ${alertRules().length} rules found`);
  });

  it('promtool test rules: every alert fires on its series and stays silent on normal traffic', () => {
    const run = promtool('test', 'rules', 'alerts.test.yml');
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain('SUCCESS');

    const file: Json = parse(readFileSync(join(PROMETHEUS_DIR, 'alerts.test.yml'), 'utf8'));
    const tests: RuleTest[] = file.tests;
    const cases = tests.flatMap((t) => (t.alert_rule_test ?? []).map((c) => ({ test: t, c })));
    const normal = tests.find((t) => t.name?.startsWith('normal traffic'));
    expect(normal, 'alerts.test.yml has a "normal traffic" test').toBeDefined();
    for (const { alert } of alertRules()) {
      const fires = cases.some(({ c }) => c.alertname === alert && (c.exp_alerts ?? []).length > 0);
      expect(fires, `${alert} has a promtool case where it fires`).toBe(true);
      const silentOnNormal = (normal?.alert_rule_test ?? []).some(
        (c) => c.alertname === alert && (c.exp_alerts ?? []).length === 0,
      );
      expect(silentOnNormal, `${alert} is checked silent on normal traffic`).toBe(true);
    }
  });
});

interface PromResponse {
  status: 'success' | 'error';
  error?: string;
  data?: { resultType: string; result: unknown[] };
}

/**
 * Panels that must show data after the scripted session: every row's main panels. (Confirmations
 * and the error ratios may rightly be empty when nothing failed or was confirmed.)
 */
const KEY_PANELS = [
  'Instances up',
  'MCP requests/s',
  'Tool calls/s',
  'REST requests/s',
  'MCP requests by era and outcome',
  'MCP request latency p50 / p99 by method',
  'Tool calls by tool and status',
  'Tool call latency p50 by tool',
  'Transport rejections by reason',
  'REST requests by route and status',
  'REST latency p99 by route',
  'Database pool',
  'CPU',
  'Memory',
  'Event loop lag p99',
];

describe('a real Prometheus scraping the built server', skipWhen(PROMETHEUS_MISSING), () => {
  let server: BuiltServer | undefined;
  let receiver: OtlpReceiver | undefined;
  let prometheus: ChildProcess | undefined;
  /** The trace ids the session's traced calls carried (`_meta.traceparent`). */
  const traced: string[] = [];
  let work: string | undefined;
  let api = '';

  const query = async (expr: string): Promise<PromResponse> => {
    const res = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body: Json = await res.json();
    return body;
  };

  /** A scripted session touching every row of the dashboard. */
  const session = async (round: number): Promise<void> => {
    const s = server!;
    const id = (what: string): string => `ops-${round}-${what}-${Date.now().toString(36)}`;
    const traceId = randomHex(16);
    traced.push(traceId);
    await modernToolCall(
      s.url,
      s.tokens.owner,
      'ops-tier',
      'list_portal_users',
      { limit: 1 },
      {
        requestId: id('modern'),
        meta: { traceparent: `00-${traceId}-${randomHex(8)}-01` },
      },
    );
    await legacyToolCall(
      s.url,
      s.tokens.owner,
      'list_accounts',
      { limit: 1 },
      {
        requestId: id('legacy'),
      },
    );
    await modernToolCall(
      s.url,
      s.tokens.owner,
      'ops-tier',
      'get_portal_user',
      {
        id: '00000000-0000-4000-8000-000000000000',
      },
      { requestId: id('missing') },
    );
    await fetch(`${s.url}/v1/me`, { headers: { authorization: `Bearer ${s.tokens.owner}` } });
    await fetch(`${s.url}/v1/accounts?limit=1`, {
      headers: { authorization: `Bearer ${s.tokens.owner}` },
    });
    // Refused before the message is read: a wrong Accept (406) and a GET (405).
    await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${s.tokens.owner}`,
        'content-type': 'application/json',
        accept: 'text/html',
      },
      body: '{}',
    });
    await fetch(`${s.url}/mcp`, { headers: { accept: 'text/event-stream' } });
  };

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    server = await startBuiltServer({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      },
    });
    work = await mkdtemp(join(tmpdir(), 'ops-prometheus-'));
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    await writeFile(
      join(work, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        '  scrape_timeout: 1s',
        '  evaluation_interval: 1s',
        'rule_files:',
        `  - ${JSON.stringify(join(PROMETHEUS_DIR, 'alerts.yml'))}`,
        'scrape_configs:',
        '  - job_name: mcp-server',
        '    metrics_path: /metrics',
        '    static_configs:',
        `      - targets: ['${new URL(server.url).host}']`,
        '',
      ].join('\n'),
    );
    const started = spawn(
      'prometheus',
      [
        `--config.file=${join(work, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(work, 'data')}`,
        '--storage.tsdb.retention.time=1h',
        // As compose runs it: the scrapes' exemplars are kept.
        '--enable-feature=exemplar-storage',
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    prometheus = started;
    let stderr = '';
    started.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const deadline = Date.now() + 30_000;
    while (
      !(await fetch(`${api}/-/ready`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (started.exitCode !== null || Date.now() > deadline)
        throw new Error(`prometheus did not become ready:\n${stderr}`);
      await delay(200);
    }
    // Traffic spread over several scrapes, so every rate has at least two samples to compare.
    for (let round = 0; round < 6; round += 1) {
      await session(round);
      await delay(1_000);
    }
    // The target has been scraped, and the rules evaluated, since the last round.
    await delay(2_500);
  }, 240_000);

  afterAll(async () => {
    try {
      if (prometheus !== undefined && prometheus.exitCode === null) {
        const exited = new Promise((r) => prometheus!.once('exit', r));
        prometheus.kill('SIGTERM');
        const killer = setTimeout(() => prometheus?.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      }
    } finally {
      try {
        await server?.dispose();
        await receiver?.close();
      } finally {
        if (work !== undefined) await rm(work, { recursive: true, force: true });
      }
    }
  }, 60_000);

  it('scrapes the server: the target is up', async () => {
    const up = await query('up{job="mcp-server"}');
    expect(up.status).toBe('success');
    expect(up.data?.result).toEqual([
      expect.objectContaining({ value: [expect.any(Number), '1'] }),
    ]);
  });

  it('every dashboard expression evaluates without error; the key panels show data', async () => {
    const panels = dashboardPanels().filter((p) => (p.targets ?? []).length > 0);
    expect(panels.length).toBeGreaterThan(10);
    const empty: string[] = [];
    for (const panel of panels) {
      for (const target of panel.targets ?? []) {
        // Grafana's own variables, as Grafana substitutes them for a short time range.
        const expr = target.expr
          .replaceAll('$__rate_interval', '20s')
          .replaceAll('$__interval', '5s')
          .replaceAll('$__range', '5m');
        const answer = await query(expr);
        expect(answer, `panel "${panel.title}": ${expr}`).toMatchObject({ status: 'success' });
        if ((answer.data?.result ?? []).length === 0) empty.push(panel.title);
      }
    }
    const missing = KEY_PANELS.filter((title) => empty.includes(title));
    expect(missing, 'key panels without data').toEqual([]);
    for (const title of KEY_PANELS)
      expect(
        panels.map((p) => p.title),
        `dashboard has panel "${title}"`,
      ).toContain(title);
  });

  it('the exemplar panel finds the traced calls’ trace ids (OpenMetrics scrape, exemplar storage)', async () => {
    const panel = dashboardPanels().find((p) => (p.targets ?? []).some((t) => t.exemplar === true));
    expect(panel, 'a dashboard panel with exemplars on').toBeDefined();
    const expr = (panel?.targets ?? [])
      .find((t) => t.exemplar === true)!
      .expr.replaceAll('$__rate_interval', '20s');
    expect(expr).toContain('mcp_server_operation_duration_seconds_bucket');
    const now = Date.now() / 1000;
    const res = await fetch(
      `${api}/api/v1/query_exemplars?query=${encodeURIComponent(expr)}&start=${now - 600}&end=${now}`,
    );
    const body: Json = await res.json();
    expect(body.status, JSON.stringify(body)).toBe('success');
    const series: { exemplars: { labels: { trace_id: string } }[] }[] = body.data;
    const found = series.flatMap((x) => x.exemplars.map((e) => e.labels.trace_id));
    expect(found.length).toBeGreaterThan(0);
    for (const id of found) expect(id).toMatch(/^[0-9a-f]{32}$/);
    // The agent's trace of a 2026 call (its `_meta.traceparent`) is the one the exemplar names.
    expect(found.filter((id) => traced.includes(id)).length).toBeGreaterThan(0);
  });

  it('every alert expression evaluates without error, and Prometheus evaluates every rule healthy', async () => {
    for (const rule of alertRules()) {
      const answer = await query(rule.expr);
      expect(answer, `${rule.alert}: ${rule.expr}`).toMatchObject({ status: 'success' });
    }
    const rules: Json = await (await fetch(`${api}/api/v1/rules`)).json();
    const evaluated: { name: string; health: string; lastError?: string }[] =
      rules.data.groups.flatMap((g: Json) => g.rules);
    expect(evaluated.map((r) => r.name).sort()).toEqual(
      alertRules()
        .map((r) => r.alert)
        .sort(),
    );
    for (const rule of evaluated)
      expect({ name: rule.name, health: rule.health, lastError: rule.lastError ?? '' }).toEqual({
        name: rule.name,
        health: 'ok',
        lastError: '',
      });
    // Nothing is wrong with a server serving a normal session: no alert is firing or pending.
    const alerts: Json = await (await fetch(`${api}/api/v1/alerts`)).json();
    expect(alerts.data.alerts.map((a: Json) => `${a.labels.alertname}:${a.state}`)).toEqual([]);
  });
});
