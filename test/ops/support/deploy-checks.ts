/**
 * What the deploy checks compute from the files: PromQL selectors and their problems, compose
 * helpers, and the files themselves, loaded once.
 */
import { posix } from 'node:path';
import { DEFAULT_PROCESS_METRIC_NAMES, METRICS, type MetricDefinition } from '@app/metrics';

import { parse } from 'yaml';
import {
  read,
  load,
  ComposeHealthcheck,
  ComposePort,
  ComposeService,
  validateCompose,
  Container,
  validateAlerts,
  validatePrometheus,
  validateDashboard,
  loadYaml,
  loadJson,
} from './deploy-schemas.js';

// PromQL: which metrics and label matchers an expression uses

export const MATCH_OPS = ['=~', '!~', '!=', '='] as const;
export interface Matcher {
  label: string;
  op: (typeof MATCH_OPS)[number];
  value: string;
}
export interface Selector {
  name: string;
  matchers: Matcher[];
}

export const GROUPING_CLAUSES = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
]);
export const PROMQL_KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  ...GROUPING_CLAUSES,
  'bool',
  'offset',
  'atan2',
  'inf',
  'nan',
]);

export function skipString(expr: string, start: number): number {
  const quote = expr[start];
  for (let i = start + 1; i < expr.length; i++) {
    if (expr[i] === '\\' && quote !== '`') i++;
    else if (expr[i] === quote) return i;
  }
  throw new Error(`unterminated string in: ${expr}`);
}

export function skipBalanced(expr: string, start: number, open: string, close: string): number {
  let depth = 0;
  for (let i = start; i < expr.length; i++) {
    const c = expr[i];
    if (c === '"' || c === "'" || c === '`') i = skipString(expr, i);
    else if (c === open) depth++;
    else if (c === close && --depth === 0) return i + 1;
  }
  throw new Error(`unbalanced ${open}${close} in: ${expr}`);
}

export function parseMatchers(body: string): Matcher[] {
  const matchers: Matcher[] = [];
  const re = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;
  let pos = 0;
  while (body.slice(pos).trim() !== '') {
    re.lastIndex = pos;
    const m = re.exec(body);
    const op = MATCH_OPS.find((o) => o === m?.[2]);
    if (m === null || op === undefined) throw new Error(`cannot parse label matchers: {${body}}`);
    matchers.push({ label: m[1], op, value: m[3] });
    pos = re.lastIndex;
  }
  return matchers;
}

/** The metric selectors of a PromQL expression (Grafana's `$__…` variables allowed). */
export function selectorsOf(expr: string): Selector[] {
  const selectors: Selector[] = [];
  let last: Selector | undefined; // the selector a following `{…}` belongs to
  for (let i = 0; i < expr.length;) {
    const c = expr[i];
    if (c === '#') {
      const eol = expr.indexOf('\n', i);
      i = eol === -1 ? expr.length : eol;
    } else if (c === '"' || c === "'" || c === '`') {
      i = skipString(expr, i) + 1;
      last = undefined;
    } else if (c === '[') {
      i = skipBalanced(expr, i, '[', ']');
      last = undefined;
    } else if (c === '{') {
      const end = skipBalanced(expr, i, '{', '}');
      const matchers = parseMatchers(expr.slice(i + 1, end - 1));
      if (last === undefined) {
        const name = matchers.find((m) => m.label === '__name__' && m.op === '=');
        if (name === undefined) throw new Error(`selector without a metric name in: ${expr}`);
        selectors.push({ name: name.value, matchers: matchers.filter((m) => m !== name) });
      } else {
        last.matchers.push(...matchers);
      }
      i = end;
      last = undefined;
    } else if (c === '$') {
      i++;
      while (i < expr.length && /\w/.test(expr[i])) i++;
      last = undefined;
    } else if (/[a-zA-Z_:]/.test(c) && (i === 0 || !/[\w.]/.test(expr[i - 1]))) {
      const ident = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(expr.slice(i))?.[0] ?? c;
      i += ident.length;
      const rest = expr.slice(i);
      const callOrGroup = /^\s*\(/.test(rest);
      const aggregation = /^\s*(by|without)\s*\(/i.test(rest); // `sum by (x) (…)`
      if (GROUPING_CLAUSES.has(ident) && callOrGroup) {
        i = skipBalanced(expr, expr.indexOf('(', i), '(', ')');
        last = undefined;
      } else if (callOrGroup || aggregation || PROMQL_KEYWORDS.has(ident.toLowerCase())) {
        last = undefined; // a function, an aggregation or a keyword
      } else {
        last = { name: ident, matchers: [] };
        selectors.push(last);
      }
    } else {
      if (!/\s/.test(c)) last = undefined;
      i++;
    }
  }
  return selectors;
}

export const CATALOGUE: ReadonlyMap<string, MetricDefinition> = new Map(
  Object.values<MetricDefinition>(METRICS).map((d) => [d.name, d]),
);
export const DEFAULT_NAMES: ReadonlySet<string> = new Set(DEFAULT_PROCESS_METRIC_NAMES);
/** Series Prometheus itself adds for each scrape target. */
export const SCRAPE_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped']);
export const TARGET_LABELS = new Set(['job', 'instance']);
export const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'] as const;

/** Types of prom-client's default metrics, as registered (filled before the tests run). */
export const defaultMetricTypes = new Map<string, string>();

/** Whether `value` is a plain alternation like `a|b|c` rather than a real regular expression. */
export const isPlainAlternation = (value: string): boolean =>
  /^[\w\-:./]+(\|[\w\-:./]+)*$/.test(value);

export function matcherProblems(
  name: string,
  def: MetricDefinition,
  m: Matcher,
  isBucket: boolean,
): string[] {
  const known = def.labelNames.includes(m.label) || TARGET_LABELS.has(m.label);
  if (!known && !(isBucket && m.label === 'le')) {
    return [`${name}: has no label "${m.label}" (labels: ${def.labelNames.join(', ')})`];
  }
  const allowed = def.labelValues?.[m.label];
  if (allowed === undefined) return [];
  if (m.op === '=' || m.op === '!=' || isPlainAlternation(m.value)) {
    return m.value
      .split('|')
      .filter((v) => !allowed.includes(v))
      .map((v) => `${name}: ${m.label} is never "${v}" (one of: ${allowed.join(', ')})`);
  }
  const re = new RegExp(`^(?:${m.value})$`);
  return allowed.some((v) => re.test(v))
    ? []
    : [`${name}: ${m.label}${m.op}"${m.value}" matches none of ${allowed.join(', ')}`];
}

/** What is wrong with the metric names and label matchers of one expression (empty: nothing). */
export function promqlProblems(expr: string): string[] {
  const selectors = selectorsOf(expr);
  if (selectors.length === 0) return [`no metric found in: ${expr}`];
  return selectors.flatMap(({ name, matchers }): string[] => {
    if (SCRAPE_SERIES.has(name) || DEFAULT_NAMES.has(name)) return [];
    const suffix = HISTOGRAM_SUFFIXES.find((s) => name.endsWith(s));
    const base = suffix === undefined ? name : name.slice(0, -suffix.length);
    if (
      suffix !== undefined &&
      DEFAULT_NAMES.has(base) &&
      defaultMetricTypes.get(base) === 'histogram'
    ) {
      return [];
    }
    const exact = CATALOGUE.get(name);
    if (exact !== undefined) return matchers.flatMap((m) => matcherProblems(name, exact, m, false));
    const def = suffix === undefined ? undefined : CATALOGUE.get(base);
    if (def === undefined) return [`${name}: not in libs/metrics/src/metrics.catalogue.ts (typo?)`];
    if (def.type !== 'histogram')
      return [`${name}: ${base} is a ${def.type}, it has no ${suffix} series`];
    return matchers.flatMap((m) => matcherProblems(name, def, m, suffix === '_bucket'));
  });
}

/** Every `expr` string anywhere in a JSON value (Grafana panel targets, nested rows). */
export function exprsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const v of value) exprsIn(v, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'expr' && typeof v === 'string') out.push(v);
      else exprsIn(v, out);
    }
  }
  return out;
}

export const alertExprs = (yamlText: string): string[] =>
  load(validateAlerts, parse(yamlText), 'alerts').groups.flatMap((g) => g.rules.map((r) => r.expr));
export const jsonExprs = (jsonText: string): string[] => exprsIn(JSON.parse(jsonText));

// ---------------------------------------------------------------------------------------------
// Markdown anchors (GitHub's heading slugs)

export function markdownAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (m === null) continue;
    const slug = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

// ---------------------------------------------------------------------------------------------
// Compose helpers

export function envOf(service: ComposeService | undefined): Record<string, string> {
  const env = service?.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((e) => [e.split('=')[0], e.includes('=') ? e.slice(e.indexOf('=') + 1) : '']),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

export function dependsOn(service: ComposeService): Record<string, string | undefined> {
  const d = service.depends_on ?? {};
  if (Array.isArray(d)) return Object.fromEntries(d.map((n) => [n, 'service_started']));
  return Object.fromEntries(Object.entries(d).map(([n, v]) => [n, v.condition]));
}

export function healthcheckText(h: ComposeHealthcheck | undefined): string {
  if (h?.test === undefined) return '';
  return Array.isArray(h.test) ? h.test.join(' ') : h.test;
}

export const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/** Docker duration (`30s`, `1m30s`) → milliseconds. */
export function durationMs(d: string): number {
  let ms = 0;
  for (const [, n, unit] of d.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    ms += Number(n) * (DURATION_UNITS_MS[unit] ?? Number.NaN);
  }
  return ms;
}

/** `${VAR:-default}` → the variable and its default. */
export function composeDefault(value: string | undefined): { variable?: string; fallback: string } {
  const m = /^\$\{([A-Z0-9_]+):?-(.*)\}$/.exec(value ?? '');
  return m === null ? { fallback: value ?? '' } : { variable: m[1], fallback: m[2] };
}

export function hostPortOf(port: ComposePort): { published: number; target: number } {
  if (typeof port !== 'string') return { published: Number(port.published), target: port.target };
  const parts = port.split(':');
  return { published: Number(parts.at(-2)), target: Number(parts.at(-1)) };
}

/** [source, target] of each volume entry. */
export function mountsOf(service: ComposeService | undefined): [string, string][] {
  return (service?.volumes ?? []).map((v): [string, string] => {
    if (typeof v !== 'string') return [v.source ?? '', v.target ?? ''];
    const [source = '', target = ''] = v.split(':');
    return [source, target];
  });
}

export const mountTarget = (
  service: ComposeService | undefined,
  source: string,
): string | undefined => mountsOf(service).find(([s]) => posix.normalize(s) === source)?.[1];

export function resolvePort(container: Container, port: number | string): number | undefined {
  if (typeof port === 'number') return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

export const envFromRefs = (c: Container): string[] =>
  (c.envFrom ?? []).map((e) => e.configMapRef?.name ?? e.secretRef?.name ?? '').sort();

export const missingFrom = (set: ReadonlySet<string>, values: Iterable<string>): string[] =>
  [...values].filter((v) => !set.has(v));

// ---------------------------------------------------------------------------------------------

export const compose = loadYaml(validateCompose, 'docker-compose.yml');
export const services = compose.services;
export const serverEnv = envOf(services.server);
export const SERVER_PORT = Number(serverEnv.PORT ?? '3000');
export const MIGRATE_COMMAND = ['node', 'dist/apps/server/src/migrate.js', 'up'];
export const SERVE_COMMAND = ['node', 'dist/apps/server/src/main.js'];
/** `npm run admin` without npm: package.json's script, split. */
export const packageScripts: { scripts: Record<string, string> } = JSON.parse(read('package.json'));
export const ADMIN_COMMAND: string[] = packageScripts.scripts.admin.split(' ');

/** An npm script "VAR=value … node --flag … entry": the environment, node's flags, the command. */
export function splitNodeCommand(script: string): {
  env: string[];
  flags: string[];
  args: string[];
} {
  const words = script.split(/\s+/).filter((w) => w !== '');
  const node = words.indexOf('node');
  return {
    env: words.slice(0, node).filter((w) => /^\w+=/.test(w)),
    flags: words.slice(node + 1).filter((w) => w.startsWith('-')),
    args: words.slice(node).filter((w) => !w.startsWith('-')),
  };
}

export const alertRules = loadYaml(validateAlerts, 'deploy/prometheus/alerts.yml').groups.flatMap(
  (g) => g.rules,
);
export const prometheus = loadYaml(validatePrometheus, 'deploy/prometheus/prometheus.yml');
export const DASHBOARD_PATH = 'deploy/grafana/dashboards/mcp-server.json';
export const dashboard = loadJson(validateDashboard, DASHBOARD_PATH);
export const dashboardExprs = jsonExprs(read(DASHBOARD_PATH));
export const operationsAnchors = markdownAnchors(read('docs/operations.md'));
