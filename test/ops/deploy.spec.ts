/**
 * The deployment files hang together: docker-compose, Dockerfile, Kubernetes manifests, Prometheus
 * config and alert rules, Grafana provisioning and dashboard, and the runbook. No Docker or cluster
 * is needed: everything is parsed, its shape validated, and cross-checked. In particular every
 * metric (and label) used in PromQL must exist in the metric catalogue, so a typo in a dashboard or
 * an alert rule fails here.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, resolve } from 'node:path';
import { ENV_KEYS } from '@app/config';
import { DEFAULT_PROCESS_METRIC_NAMES, METRICS, type MetricDefinition } from '@app/metrics';
import { Ajv, type SchemaObject, type ValidateFunction } from 'ajv';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { skipWhen } from '../support/skip.js';
import {
  containersOf,
  isBuiltInKind,
  kustomizeUnavailable,
  manifestsIn,
  renderKustomization,
  schemaProblems,
  unknownFieldProblems,
  type Json,
  type Manifest,
} from '../support/kubernetes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** Every environment variable the server reads (the config lib's table is the source of truth). */
const SERVER_ENV_KEYS: ReadonlySet<string> = new Set(ENV_KEYS.map(([env]) => env));

// ---------------------------------------------------------------------------------------------
// File shapes: what the checks read, validated at load time (a wrong shape fails with its path)

const ajv = new Ajv({ allErrors: true, strict: false });
const STR = { type: 'string' };
const INT = { type: 'integer' };
const SCALAR = { type: ['string', 'number', 'boolean', 'null'] };
const STR_MAP = { type: 'object', additionalProperties: { type: 'string' } };
const arrayOf = (items: SchemaObject): SchemaObject => ({ type: 'array', items });
const objectOf = (
  properties: Record<string, SchemaObject>,
  required: string[] = [],
): SchemaObject => ({
  type: 'object',
  properties,
  required,
});

function load<T>(validate: ValidateFunction<T>, value: unknown, what: string): T {
  if (!validate(value)) throw new Error(`${what}: ${ajv.errorsText(validate.errors)}`);
  return value;
}

interface ComposeHealthcheck {
  test?: string | string[];
}
type ComposePort = string | { target: number; published?: string | number };
type ComposeVolume = string | { source?: string; target?: string };
interface ComposeService {
  image?: string;
  build?: string | { context?: string };
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: ComposePort[];
  volumes?: ComposeVolume[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: ComposeHealthcheck;
  stop_grace_period?: string;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}
const STR_OR_LIST = { anyOf: [STR, arrayOf(STR)] };
const validateCompose = ajv.compile<ComposeFile>(
  objectOf(
    {
      services: {
        type: 'object',
        additionalProperties: objectOf({
          image: STR,
          build: { anyOf: [STR, { type: 'object' }] },
          command: STR_OR_LIST,
          environment: { anyOf: [{ type: 'object', additionalProperties: SCALAR }, arrayOf(STR)] },
          ports: arrayOf({ anyOf: [STR, objectOf({ target: INT }, ['target'])] }),
          volumes: arrayOf({ anyOf: [STR, objectOf({ source: STR, target: STR })] }),
          depends_on: {
            anyOf: [
              arrayOf(STR),
              { type: 'object', additionalProperties: objectOf({ condition: STR }) },
            ],
          },
          healthcheck: objectOf({ test: STR_OR_LIST }),
          stop_grace_period: STR,
        }),
      },
      volumes: { type: 'object' },
    },
    ['services'],
  ),
);

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
}
interface Probe {
  httpGet?: { path: string; port: number | string };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] }; sleep?: { seconds: number } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean };
}
interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    containers: Container[];
    restartPolicy?: string;
    terminationGracePeriodSeconds?: number;
    securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  };
}
interface Workload extends K8sObject {
  spec: {
    replicas?: number;
    selector?: { matchLabels: Record<string, string> };
    template: PodTemplate;
  };
}
interface Service extends K8sObject {
  spec: {
    selector: Record<string, string>;
    ports: { port: number; targetPort: number | string }[];
  };
}
interface Pdb extends K8sObject {
  spec: { minAvailable?: number; selector: { matchLabels: Record<string, string> } };
}
interface Hpa extends K8sObject {
  spec: {
    scaleTargetRef: { kind: string; name: string };
    minReplicas: number;
    maxReplicas: number;
  };
}
interface ConfigMap extends K8sObject {
  data: Record<string, string>;
}
interface Secret extends K8sObject {
  stringData?: Record<string, string>;
  data?: Record<string, string>;
}
interface Kustomization {
  namespace?: string;
  resources: string[];
  images?: { name: string }[];
}

const META = objectOf({ name: STR, namespace: STR, labels: STR_MAP, annotations: STR_MAP }, [
  'name',
]);
const k8s = (kind: string, spec: Record<string, SchemaObject>, required: string[]): SchemaObject =>
  objectOf({ apiVersion: STR, kind: { const: kind }, metadata: META, ...spec }, [
    'apiVersion',
    'kind',
    'metadata',
    ...required,
  ]);
const PORT_REF = { type: ['integer', 'string'] };
const PROBE = objectOf({ httpGet: objectOf({ path: STR, port: PORT_REF }, ['path', 'port']) });
const CONTAINER = objectOf(
  {
    name: STR,
    image: STR,
    command: arrayOf(STR),
    ports: arrayOf(objectOf({ name: STR, containerPort: INT }, ['containerPort'])),
    env: arrayOf(objectOf({ name: STR }, ['name'])),
    envFrom: arrayOf(
      objectOf({
        configMapRef: objectOf({ name: STR }, ['name']),
        secretRef: objectOf({ name: STR }, ['name']),
      }),
    ),
    readinessProbe: PROBE,
    livenessProbe: PROBE,
    startupProbe: PROBE,
    lifecycle: objectOf({
      preStop: objectOf({
        exec: objectOf({ command: arrayOf(STR) }, ['command']),
        sleep: objectOf({ seconds: INT }, ['seconds']),
      }),
    }),
    resources: objectOf({ requests: STR_MAP, limits: STR_MAP }),
    securityContext: objectOf({
      allowPrivilegeEscalation: { type: 'boolean' },
      readOnlyRootFilesystem: { type: 'boolean' },
    }),
  },
  ['name', 'image'],
);
const POD_TEMPLATE = objectOf(
  {
    metadata: objectOf({ labels: STR_MAP, annotations: STR_MAP }, ['labels']),
    spec: objectOf(
      {
        containers: { ...arrayOf(CONTAINER), minItems: 1 },
        restartPolicy: STR,
        terminationGracePeriodSeconds: INT,
        securityContext: objectOf({ runAsNonRoot: { type: 'boolean' }, runAsUser: INT }),
      },
      ['containers'],
    ),
  },
  ['metadata', 'spec'],
);
const MATCH_LABELS = objectOf({ matchLabels: STR_MAP }, ['matchLabels']);

const validateK8sObject = ajv.compile<K8sObject>(
  objectOf({ apiVersion: STR, kind: STR, metadata: META }, ['apiVersion', 'kind', 'metadata']),
);
const validateDeployment = ajv.compile<Workload>(
  k8s(
    'Deployment',
    {
      spec: objectOf({ replicas: INT, selector: MATCH_LABELS, template: POD_TEMPLATE }, [
        'replicas',
        'selector',
        'template',
      ]),
    },
    ['spec'],
  ),
);
const validateJob = ajv.compile<Workload>(
  k8s('Job', { spec: objectOf({ template: POD_TEMPLATE }, ['template']) }, ['spec']),
);
const validateService = ajv.compile<Service>(
  k8s(
    'Service',
    {
      spec: objectOf(
        {
          selector: STR_MAP,
          ports: arrayOf(objectOf({ port: INT, targetPort: PORT_REF }, ['port', 'targetPort'])),
        },
        ['selector', 'ports'],
      ),
    },
    ['spec'],
  ),
);
const validatePdb = ajv.compile<Pdb>(
  k8s(
    'PodDisruptionBudget',
    { spec: objectOf({ minAvailable: INT, selector: MATCH_LABELS }, ['selector']) },
    ['spec'],
  ),
);
const validateHpa = ajv.compile<Hpa>(
  k8s(
    'HorizontalPodAutoscaler',
    {
      spec: objectOf(
        {
          scaleTargetRef: objectOf({ kind: STR, name: STR }, ['kind', 'name']),
          minReplicas: INT,
          maxReplicas: INT,
        },
        ['scaleTargetRef', 'minReplicas', 'maxReplicas'],
      ),
    },
    ['spec'],
  ),
);
const validateConfigMap = ajv.compile<ConfigMap>(k8s('ConfigMap', { data: STR_MAP }, ['data']));
const validateSecret = ajv.compile<Secret>(
  k8s('Secret', { stringData: STR_MAP, data: STR_MAP }, []),
);
const validateKustomization = ajv.compile<Kustomization>(
  objectOf(
    {
      namespace: STR,
      resources: arrayOf(STR),
      images: arrayOf(objectOf({ name: STR }, ['name'])),
    },
    ['resources'],
  ),
);

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface AlertsFile {
  groups: { name: string; rules: AlertRule[] }[];
}
const validateAlerts = ajv.compile<AlertsFile>(
  objectOf(
    {
      groups: arrayOf(
        objectOf(
          {
            name: STR,
            rules: arrayOf(
              objectOf({ alert: STR, expr: STR, for: STR, labels: STR_MAP, annotations: STR_MAP }, [
                'alert',
                'expr',
              ]),
            ),
          },
          ['name', 'rules'],
        ),
      ),
    },
    ['groups'],
  ),
);

interface PrometheusConfig {
  rule_files?: string[];
  scrape_configs: {
    job_name: string;
    metrics_path?: string;
    static_configs?: { targets: string[] }[];
  }[];
}
const validatePrometheus = ajv.compile<PrometheusConfig>(
  objectOf(
    {
      rule_files: arrayOf(STR),
      scrape_configs: arrayOf(
        objectOf(
          {
            job_name: STR,
            metrics_path: STR,
            static_configs: arrayOf(objectOf({ targets: arrayOf(STR) }, ['targets'])),
          },
          ['job_name'],
        ),
      ),
    },
    ['scrape_configs'],
  ),
);

interface Dashboard {
  uid: string;
  panels: { id: number; type: string; targets?: { expr: string }[] }[];
}
const validateDashboard = ajv.compile<Dashboard>(
  objectOf(
    {
      uid: STR,
      panels: arrayOf(
        objectOf(
          {
            id: INT,
            type: STR,
            targets: arrayOf(objectOf({ expr: STR }, ['expr'])),
          },
          ['id', 'type'],
        ),
      ),
    },
    ['uid', 'panels'],
  ),
);

interface GrafanaDatasources {
  datasources: { uid: string; type: string; url: string }[];
}
const validateDatasources = ajv.compile<GrafanaDatasources>(
  objectOf(
    { datasources: arrayOf(objectOf({ uid: STR, type: STR, url: STR }, ['uid', 'type', 'url'])) },
    ['datasources'],
  ),
);
interface GrafanaDashboardProviders {
  providers: { type: string; options: { path: string } }[];
}
const validateProviders = ajv.compile<GrafanaDashboardProviders>(
  objectOf(
    {
      providers: arrayOf(
        objectOf({ type: STR, options: objectOf({ path: STR }, ['path']) }, ['type', 'options']),
      ),
    },
    ['providers'],
  ),
);

interface NestCli {
  projects: { server: { entryFile: string } };
}
const validateNestCli = ajv.compile<NestCli>(
  objectOf(
    { projects: objectOf({ server: objectOf({ entryFile: STR }, ['entryFile']) }, ['server']) },
    ['projects'],
  ),
);

const loadYaml = <T>(validate: ValidateFunction<T>, path: string): T =>
  load(validate, parse(read(path)), path);
const loadJson = <T>(validate: ValidateFunction<T>, path: string): T =>
  load(validate, JSON.parse(read(path)), path);

function k8sFiles(): string[] {
  return readdirSync(join(ROOT, BASE_DIR))
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
}

function k8sDocuments(file: string): unknown[] {
  return parseAllDocuments(read(`${BASE_DIR}/${file}`)).map((d): unknown => d.toJS());
}

/** The first object of `file` whose kind matches, validated. */
function k8sObject<T extends K8sObject>(
  validate: ValidateFunction<T>,
  kind: string,
  file: string,
): T {
  const doc = k8sDocuments(file).find((d) => load(validateK8sObject, d, file).kind === kind);
  if (doc === undefined) throw new Error(`no ${kind} in ${BASE_DIR}/${file}`);
  return load(validate, doc, `${BASE_DIR}/${file} (${kind})`);
}

// ---------------------------------------------------------------------------------------------
// PromQL: which metrics and label matchers an expression uses

const MATCH_OPS = ['=~', '!~', '!=', '='] as const;
interface Matcher {
  label: string;
  op: (typeof MATCH_OPS)[number];
  value: string;
}
interface Selector {
  name: string;
  matchers: Matcher[];
}

const PROMQL_KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
  'atan2',
  'inf',
  'nan',
]);
const GROUPING_CLAUSES = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

function skipString(expr: string, start: number): number {
  const quote = expr[start];
  for (let i = start + 1; i < expr.length; i++) {
    if (expr[i] === '\\' && quote !== '`') i++;
    else if (expr[i] === quote) return i;
  }
  throw new Error(`unterminated string in: ${expr}`);
}

function skipBalanced(expr: string, start: number, open: string, close: string): number {
  let depth = 0;
  for (let i = start; i < expr.length; i++) {
    const c = expr[i];
    if (c === '"' || c === "'" || c === '`') i = skipString(expr, i);
    else if (c === open) depth++;
    else if (c === close && --depth === 0) return i + 1;
  }
  throw new Error(`unbalanced ${open}${close} in: ${expr}`);
}

function parseMatchers(body: string): Matcher[] {
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
function selectorsOf(expr: string): Selector[] {
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

const CATALOGUE: ReadonlyMap<string, MetricDefinition> = new Map(
  Object.values<MetricDefinition>(METRICS).map((d) => [d.name, d]),
);
const DEFAULT_NAMES: ReadonlySet<string> = new Set(DEFAULT_PROCESS_METRIC_NAMES);
/** Series Prometheus itself adds for each scrape target. */
const SCRAPE_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped']);
const TARGET_LABELS = new Set(['job', 'instance']);
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'] as const;

/** Types of prom-client's default metrics, as registered (filled before the tests run). */
const defaultMetricTypes = new Map<string, string>();

/** Whether `value` is a plain alternation like `a|b|c` rather than a real regular expression. */
const isPlainAlternation = (value: string): boolean => /^[\w\-:./]+(\|[\w\-:./]+)*$/.test(value);

function matcherProblems(
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
function promqlProblems(expr: string): string[] {
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
function exprsIn(value: unknown, out: string[] = []): string[] {
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

const alertExprs = (yamlText: string): string[] =>
  load(validateAlerts, parse(yamlText), 'alerts').groups.flatMap((g) => g.rules.map((r) => r.expr));
const jsonExprs = (jsonText: string): string[] => exprsIn(JSON.parse(jsonText));

// ---------------------------------------------------------------------------------------------
// Markdown anchors (GitHub's heading slugs)

function markdownAnchors(markdown: string): Set<string> {
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

function envOf(service: ComposeService | undefined): Record<string, string> {
  const env = service?.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((e) => [e.split('=')[0], e.includes('=') ? e.slice(e.indexOf('=') + 1) : '']),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

function dependsOn(service: ComposeService): Record<string, string | undefined> {
  const d = service.depends_on ?? {};
  if (Array.isArray(d)) return Object.fromEntries(d.map((n) => [n, 'service_started']));
  return Object.fromEntries(Object.entries(d).map(([n, v]) => [n, v.condition]));
}

function healthcheckText(h: ComposeHealthcheck | undefined): string {
  if (h?.test === undefined) return '';
  return Array.isArray(h.test) ? h.test.join(' ') : h.test;
}

const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/** Docker duration (`30s`, `1m30s`) → milliseconds. */
function durationMs(d: string): number {
  let ms = 0;
  for (const [, n, unit] of d.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    ms += Number(n) * (DURATION_UNITS_MS[unit] ?? Number.NaN);
  }
  return ms;
}

/** `${VAR:-default}` → the variable and its default. */
function composeDefault(value: string | undefined): { variable?: string; fallback: string } {
  const m = /^\$\{([A-Z0-9_]+):?-(.*)\}$/.exec(value ?? '');
  return m === null ? { fallback: value ?? '' } : { variable: m[1], fallback: m[2] };
}

function hostPortOf(port: ComposePort): { published: number; target: number } {
  if (typeof port !== 'string') return { published: Number(port.published), target: port.target };
  const parts = port.split(':');
  return { published: Number(parts.at(-2)), target: Number(parts.at(-1)) };
}

/** [source, target] of each volume entry. */
function mountsOf(service: ComposeService | undefined): [string, string][] {
  return (service?.volumes ?? []).map((v): [string, string] => {
    if (typeof v !== 'string') return [v.source ?? '', v.target ?? ''];
    const [source = '', target = ''] = v.split(':');
    return [source, target];
  });
}

const mountTarget = (service: ComposeService | undefined, source: string): string | undefined =>
  mountsOf(service).find(([s]) => posix.normalize(s) === source)?.[1];

function resolvePort(container: Container, port: number | string): number | undefined {
  if (typeof port === 'number') return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

const envFromRefs = (c: Container): string[] =>
  (c.envFrom ?? []).map((e) => e.configMapRef?.name ?? e.secretRef?.name ?? '').sort();

const missingFrom = (set: ReadonlySet<string>, values: Iterable<string>): string[] =>
  [...values].filter((v) => !set.has(v));

// ---------------------------------------------------------------------------------------------

const compose = loadYaml(validateCompose, 'docker-compose.yml');
const services = compose.services;
const serverEnv = envOf(services.server);
const SERVER_PORT = Number(serverEnv.PORT ?? '3000');
const MIGRATE_COMMAND = ['node', 'dist/apps/server/src/migrate.js', 'up'];
const SERVE_COMMAND = ['node', 'dist/apps/server/src/main.js'];
/** `npm run admin` without npm: package.json's script, split. */
const packageScripts: { scripts: Record<string, string> } = JSON.parse(read('package.json'));
const ADMIN_COMMAND: string[] = packageScripts.scripts.admin.split(' ');

/** An npm script "VAR=value … node --flag … entry": the environment, node's flags, the command. */
function splitNodeCommand(script: string): { env: string[]; flags: string[]; args: string[] } {
  const words = script.split(/\s+/).filter((w) => w !== '');
  const node = words.indexOf('node');
  return {
    env: words.slice(0, node).filter((w) => /^\w+=/.test(w)),
    flags: words.slice(node + 1).filter((w) => w.startsWith('-')),
    args: words.slice(node).filter((w) => !w.startsWith('-')),
  };
}
const ADMIN_JOB_FILE = 'admin-org-create-job.yaml';
/** The kustomize base, beside its overlays (kustomize refuses an overlay inside its base). */
const BASE_DIR = 'deploy/k8s/base';
const OVERLAYS_DIR = 'deploy/k8s/overlays';
const OVERLAY_DIR = `${OVERLAYS_DIR}/production`;

const alertRules = loadYaml(validateAlerts, 'deploy/prometheus/alerts.yml').groups.flatMap(
  (g) => g.rules,
);
const prometheus = loadYaml(validatePrometheus, 'deploy/prometheus/prometheus.yml');
const DASHBOARD_PATH = 'deploy/grafana/dashboards/mcp-server.json';
const dashboard = loadJson(validateDashboard, DASHBOARD_PATH);
const dashboardExprs = jsonExprs(read(DASHBOARD_PATH));
const operationsAnchors = markdownAnchors(read('docs/operations.md'));

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

describe('docker-compose', () => {
  it('has postgres, redis, migrate, server, prometheus and grafana (and admin, on demand)', () => {
    expect(Object.keys(services).sort()).toEqual([
      'admin',
      'grafana',
      'migrate',
      'postgres',
      'prometheus',
      'redis',
      'server',
    ]);
  });

  it('runs postgres 16 with a pg_isready healthcheck and a named volume', () => {
    const pg = services.postgres;
    expect(pg?.image).toMatch(/^postgres:16(\b|$)/);
    expect(healthcheckText(pg?.healthcheck)).toContain('pg_isready');
    const named = mountsOf(pg)
      .map(([source]) => source)
      .filter((s) => !s.startsWith('.') && !s.startsWith('/'));
    expect(named).toHaveLength(1);
    expect(Object.keys(compose.volumes ?? {})).toContain(named[0]);
  });

  it('migrates once, after postgres is healthy, then starts the server (with Redis for the rate limits)', () => {
    const { migrate, server } = services;
    expect(migrate?.command).toEqual(MIGRATE_COMMAND);
    expect(dependsOn(migrate ?? {})).toEqual({ postgres: 'service_healthy' });
    expect(dependsOn(server ?? {})).toEqual({
      postgres: 'service_healthy',
      redis: 'service_healthy',
      migrate: 'service_completed_successfully',
    });
    expect(migrate?.image).toBe(server?.image);
    expect(migrate?.build).toEqual(server?.build);
  });

  it('every depends_on names a service, with a valid condition it can satisfy', () => {
    const conditions = new Set([
      'service_started',
      'service_healthy',
      'service_completed_successfully',
    ]);
    const problems = Object.entries(services).flatMap(([name, service]) =>
      Object.entries(dependsOn(service)).flatMap(([dep, condition]) => {
        if (services[dep] === undefined) return [`${name} → ${dep}: no such service`];
        if (!conditions.has(condition ?? ''))
          return [`${name} → ${dep}: bad condition ${condition}`];
        if (condition === 'service_healthy' && healthcheckText(services[dep].healthcheck) === '') {
          return [`${name} → ${dep}: ${dep} has no healthcheck`];
        }
        return [];
      }),
    );
    expect(problems).toEqual([]);
  });

  it('every long-running service has a healthcheck; the server checks /health/ready with node', () => {
    const longRunning = ['postgres', 'server', 'prometheus', 'grafana'];
    expect(longRunning.filter((n) => healthcheckText(services[n]?.healthcheck) === '')).toEqual([]);
    const check = healthcheckText(services.server?.healthcheck);
    expect(check).toContain(`http://127.0.0.1:${SERVER_PORT}/health/ready`);
    expect(check).toMatch(/\bnode\b[^]*fetch\(/);
    expect(check).not.toMatch(/\b(curl|wget)\b/);
  });

  it('the server and migrate env hold only keys the server reads, and the required ones', () => {
    expect(missingFrom(SERVER_ENV_KEYS, Object.keys(serverEnv))).toEqual([]);
    expect(missingFrom(SERVER_ENV_KEYS, Object.keys(envOf(services.migrate)))).toEqual([]);
    expect(Object.keys(serverEnv)).toEqual(
      expect.arrayContaining([
        'DATABASE_URL',
        'HOST',
        'PORT',
        'PUBLIC_BASE_URL',
        'SERVER_SECRET_KEYS',
      ]),
    );
    expect(serverEnv.HOST).toBe('0.0.0.0');
    expect(SERVER_PORT).toBe(3000);
  });

  it('the database URL points at the postgres service and its credentials', () => {
    const url = new URL(serverEnv.DATABASE_URL ?? '');
    const pg = envOf(services.postgres);
    expect({
      protocol: url.protocol,
      host: url.hostname,
      port: url.port || '5432',
      user: url.username,
      password: url.password,
      db: url.pathname,
    }).toEqual({
      protocol: 'postgres:',
      host: 'postgres',
      port: '5432',
      user: pg.POSTGRES_USER,
      password: pg.POSTGRES_PASSWORD,
      db: `/${pg.POSTGRES_DB}`,
    });
  });

  it('SERVER_SECRET_KEYS comes from the environment, with a clearly marked, valid dev default', () => {
    const { variable, fallback } = composeDefault(serverEnv.SERVER_SECRET_KEYS);
    expect(variable).toBe('SERVER_SECRET_KEYS');
    expect(fallback).toMatch(/dev/i);
    expect(fallback).toMatch(/insecure/i);
    expect(fallback.length).toBeGreaterThanOrEqual(32);
    expect(read('docker-compose.yml')).toMatch(/#.*DEV ONLY/);
  });

  it('publishes the server port, and lets it drain on stop', () => {
    expect((services.server?.ports ?? []).map(hostPortOf)).toContainEqual({
      published: SERVER_PORT,
      target: SERVER_PORT,
    });
    expect(durationMs(services.server?.stop_grace_period ?? '10s')).toBeGreaterThan(
      Number(serverEnv.SHUTDOWN_GRACE_MS ?? '10000'),
    );
  });

  it('bind mounts point at files and folders of this repository', () => {
    const sources = Object.values(services)
      .flatMap((s) => mountsOf(s).map(([source]) => source))
      .filter((s) => s.startsWith('./'));
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.filter((s) => !existsSync(join(ROOT, s)))).toEqual([]);
  });
});

describe('Dockerfile', () => {
  const lines = read('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const stages: { name: string; from: string; lines: string[] }[] = [];
  for (const line of lines) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from === null) stages.at(-1)?.lines.push(line);
    else stages.push({ from: from[1], name: from[2] ?? '', lines: [] });
  }
  const runtime = stages.at(-1)?.lines ?? [];
  const args = new Map(
    lines.flatMap((l): [string, string][] => {
      const m = /^ARG\s+(\w+)=(\S+)/.exec(l);
      return m === null ? [] : [[m[1], m[2]]];
    }),
  );
  const image = (from: string): string =>
    from.replace(/^\$\{(\w+)\}$/, (_, a: string) => args.get(a) ?? a);

  it('is multi-stage: npm ci, npm run build, then a runtime with production dependencies only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    const all = stages.flatMap((s) => s.lines).join('\n');
    expect(all).toMatch(/RUN .*npm ci\b/);
    expect(all).toMatch(/RUN .*npm run build\b/);
    expect(all).toMatch(/npm ci [^\n]*--omit=dev/);
    expect(runtime.join('\n')).not.toMatch(/npm (ci|install)(?![^\n]*--omit=dev)/);
    expect(runtime.join('\n')).toMatch(/COPY --from=\S+ \S*dist/);
  });

  it('runs Node 22+ as a non-root user in production mode on the server port', () => {
    const stageNames = new Set(stages.map((s) => s.name));
    const bases = stages.filter((s) => !stageNames.has(s.from)).map((s) => image(s.from));
    expect(bases.length).toBeGreaterThan(0);
    expect(
      bases.filter((b) => Number(/^node:(\d+)/.exec(b)?.[1]) < 22 || !b.startsWith('node:')),
    ).toEqual([]);
    const user =
      runtime
        .filter((l) => /^USER\s/.test(l))
        .at(-1)
        ?.split(/\s+/)[1] ?? 'root';
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(runtime.join('\n')).toMatch(/ENV .*NODE_ENV=production/);
    expect(runtime).toContain(`EXPOSE ${SERVER_PORT}`);
  });

  it('starts the built server; server and migration entry files exist where nest build puts them', () => {
    const cmd = lines.filter((l) => l.startsWith('CMD')).at(-1) ?? 'CMD []';
    expect(parse(cmd.slice(3).trim())).toEqual(SERVE_COMMAND);
    const nest = loadJson(validateNestCli, 'nest-cli.json');
    expect(`dist/${nest.projects.server.entryFile}.js`).toBe(SERVE_COMMAND[1]);
    const sources = [SERVE_COMMAND[1], MIGRATE_COMMAND[1]].map((js) =>
      js.replace(/^dist\//, '').replace(/\.js$/, '.ts'),
    );
    expect(sources.filter((f) => !existsSync(join(ROOT, f)))).toEqual([]);
  });

  it('runs with the memory settings of `npm run start:prod` and `npm start` (docs/operations.md "Memory")', () => {
    const prod = splitNodeCommand(packageScripts.scripts['start:prod'] ?? '');
    expect(prod.args).toEqual(SERVE_COMMAND);
    expect(prod.env).toContain('MALLOC_ARENA_MAX=2');
    expect(prod.flags.some((f) => /^--max-old-space-size=\d+$/.test(f))).toBe(true);
    expect(packageScripts.scripts.start).toBe(
      `npm run build && ${packageScripts.scripts['start:prod']}`,
    );
    const env = runtime
      .filter((l) => l.startsWith('ENV '))
      .flatMap((l) => l.slice(4).trim().split(/\s+/));
    expect(env).toEqual(
      expect.arrayContaining([...prod.env, `NODE_OPTIONS=${prod.flags.join(' ')}`]),
    );
  });

  it('leaves the testing-only conformance fixtures (their entry and library) out of the image', () => {
    const build = stages.find((st) => st.lines.some((l) => /RUN .*npm run build\b/.test(l)));
    const removed = (build?.lines ?? [])
      .flatMap((l) => [...l.matchAll(/\brm -r\s+((?:[^&;]\S*\s*)+)/g)])
      .flatMap((m) => m[1].trim().split(/\s+/));
    const fixtures = [
      'dist/apps/server/src/conformance-fixtures.js*',
      'dist/libs/mcp-conformance-fixtures',
    ];
    expect(removed).toEqual(expect.arrayContaining(fixtures));
    // What is removed is what the build makes of sources that exist.
    expect(existsSync(join(ROOT, 'apps/server/src/conformance-fixtures.ts'))).toBe(true);
    expect(existsSync(join(ROOT, 'libs/mcp-conformance-fixtures/src/index.ts'))).toBe(true);
    expect(runtime.join('\n')).toMatch(new RegExp(`COPY --from=${build?.name ?? '-'} \\S*dist`));
  });

  it('.dockerignore keeps node_modules, dist and secrets out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git', '.env']));
    expect(
      ['apps', 'libs', 'package.json', 'package-lock.json'].filter((n) => ignored.includes(n)),
    ).toEqual([]);
  });
});

describe('Kubernetes manifests', () => {
  const kustomization = loadYaml(validateKustomization, `${BASE_DIR}/kustomization.yaml`);
  const deployment = k8sObject(validateDeployment, 'Deployment', 'deployment.yaml');
  const pod = deployment.spec.template;
  const container = pod.spec.containers[0];
  const job = k8sObject(validateJob, 'Job', 'migration-job.yaml');
  const jobContainer = job.spec.template.spec.containers[0];
  const configMap = k8sObject(validateConfigMap, 'ConfigMap', 'configmap.yaml');
  const secret = k8sObject(validateSecret, 'Secret', 'secret.example.yaml');
  const hpa = k8sObject(validateHpa, 'HorizontalPodAutoscaler', 'hpa.yaml');
  const containerPort = (p: number | string): number | undefined => resolvePort(container, p);
  const preStop = container.lifecycle?.preStop;
  const preStopCommand = preStop?.exec?.command ?? [];
  const preStopSeconds =
    preStop?.sleep?.seconds ?? (preStopCommand[0] === 'sleep' ? Number(preStopCommand[1]) : 0);

  it('kustomization lists every manifest but the example secret and the one-shot admin Job, in the one namespace', () => {
    const files = k8sFiles().filter(
      (f) => !['kustomization.yaml', 'secret.example.yaml', ADMIN_JOB_FILE].includes(f),
    );
    expect([...kustomization.resources].sort()).toEqual(files);
    const namespace = k8sObject(validateK8sObject, 'Namespace', 'namespace.yaml').metadata.name;
    expect(kustomization.namespace).toBe(namespace);
    expect(secret.metadata.namespace).toBe(namespace);
  });

  it('every object has a kind, an apiVersion and a DNS-label name', () => {
    const objects = k8sFiles()
      .filter((f) => f !== 'kustomization.yaml')
      .flatMap((f) => k8sDocuments(f).map((d) => load(validateK8sObject, d, f)));
    expect(objects.length).toBeGreaterThanOrEqual(8);
    const badNames = objects
      .map((o) => o.metadata.name)
      .filter((n) => !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(n));
    expect(badNames).toEqual([]);
  });

  it('runs 3 replicas whose pods match the selector', () => {
    expect(deployment.spec.replicas).toBe(3);
    expect(pod.metadata.labels).toMatchObject(
      deployment.spec.selector?.matchLabels ?? { selector: 'missing' },
    );
  });

  it('probes /health/ready and /health/live on the container port', () => {
    expect(containerPort('http')).toBe(Number(configMap.data.PORT));
    expect(container.readinessProbe?.httpGet?.path).toBe('/health/ready');
    expect(container.livenessProbe?.httpGet?.path).toBe('/health/live');
    const probePorts = [container.readinessProbe, container.livenessProbe, container.startupProbe]
      .filter((p) => p !== undefined)
      .map((p) => containerPort(p.httpGet?.port ?? -1));
    expect(probePorts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(probePorts)).toEqual(new Set([SERVER_PORT]));
  });

  it('gives shutdown time: terminationGracePeriodSeconds > preStop sleep + SHUTDOWN_GRACE_MS', () => {
    const grace = Number(configMap.data.SHUTDOWN_GRACE_MS);
    expect(preStopSeconds).toBeGreaterThan(0);
    expect(grace).toBeGreaterThan(0);
    expect((pod.spec.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(
      preStopSeconds * 1000 + grace,
    );
  });

  it('sets resources and a non-root, locked-down security context', () => {
    for (const c of [container, jobContainer]) {
      expect(c.resources?.requests).toMatchObject({
        cpu: expect.any(String),
        memory: expect.any(String),
      });
      expect(c.resources?.limits).toMatchObject({ memory: expect.any(String) });
      expect(c.securityContext?.allowPrivilegeEscalation).toBe(false);
    }
    for (const spec of [pod.spec, job.spec.template.spec]) {
      expect(spec.securityContext?.runAsNonRoot).toBe(true);
      expect(spec.securityContext?.runAsUser).toBeGreaterThan(0);
    }
  });

  it('is annotated for Prometheus scraping on the container port at /metrics', () => {
    const a = pod.metadata.annotations ?? {};
    expect(a['prometheus.io/scrape']).toBe('true');
    expect(Number(a['prometheus.io/port'])).toBe(containerPort('http'));
    expect(a['prometheus.io/path']).toBe('/metrics');
  });

  it('config and secret keys are keys the server reads, each set in one place only', () => {
    const configKeys = Object.keys(configMap.data);
    const secretKeys = Object.keys({ ...secret.stringData, ...secret.data });
    expect(missingFrom(SERVER_ENV_KEYS, [...configKeys, ...secretKeys])).toEqual([]);
    expect(configKeys.filter((k) => secretKeys.includes(k))).toEqual([]);
    expect(secretKeys).toEqual(expect.arrayContaining(['DATABASE_URL', 'SERVER_SECRET_KEYS']));
    expect(configMap.data.HOST).toBe('0.0.0.0');
  });

  it('the example secret holds placeholders only', () => {
    const real = Object.entries(secret.stringData ?? {}).filter(
      ([, v]) => !/REPLACE|example/.test(v),
    );
    expect(real).toEqual([]);
    expect(secret.data).toBeUndefined();
  });

  it('server and migration job read the same config and secret, and run the same image', () => {
    expect(envFromRefs(container)).toEqual([configMap.metadata.name, secret.metadata.name].sort());
    expect(envFromRefs(jobContainer)).toEqual(envFromRefs(container));
    expect(jobContainer.image).toBe(container.image);
    expect(kustomization.images?.map((i) => i.name)).toContain(container.image);
    expect(container.env ?? []).toEqual([]);
  });

  it('the migration job runs the migrations once', () => {
    expect(jobContainer.command).toEqual(MIGRATE_COMMAND);
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
  });

  it('service, PDB and HPA select and target the deployment', () => {
    const service = k8sObject(validateService, 'Service', 'service.yaml');
    expect(pod.metadata.labels).toMatchObject(service.spec.selector);
    expect(service.spec.ports.map((p) => containerPort(p.targetPort))).toEqual([SERVER_PORT]);

    const pdb = k8sObject(validatePdb, 'PodDisruptionBudget', 'pdb.yaml');
    expect(pod.metadata.labels).toMatchObject(pdb.spec.selector.matchLabels);
    expect(pdb.spec.minAvailable ?? 0).toBeLessThan(deployment.spec.replicas ?? 1);

    expect(hpa.spec.scaleTargetRef).toMatchObject({
      kind: 'Deployment',
      name: deployment.metadata.name,
    });
    expect(hpa.spec.minReplicas).toBe(deployment.spec.replicas);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
  });

  it('the database connection budget fits Postgres default max_connections (100)', () => {
    const pool = Number(configMap.data.DB_POOL_SIZE ?? '10');
    const surge = 1;
    const migrationJob = pool;
    // Each replica: its pool plus the token cache's LISTEN connection.
    expect((hpa.spec.maxReplicas + surge) * (pool + 1) + migrationJob).toBeLessThan(100);
  });
});

describe('image and compose hardening', () => {
  it('the Dockerfile runs as non-root, has a HEALTHCHECK on readiness, and its Node major satisfies engines', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^USER 1000:1000$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK [^\n]*\\\n\s+CMD [^\n]*\/health\/ready/m);
    const image = /^ARG NODE_IMAGE=node:(\d+)[-.]/m.exec(dockerfile)?.[1];
    const pkg: { engines: { node: string } } = JSON.parse(read('package.json'));
    const required = /^>=(\d+)/.exec(pkg.engines.node)?.[1];
    expect(image).toBeDefined();
    expect(required).toBeDefined();
    expect(Number(image)).toBeGreaterThanOrEqual(Number(required));
    // What the dependencies declare: engines may not promise less than they need.
    for (const dep of ['nestjs-pino', 'nestjs-cls']) {
      const theirs: { engines?: { node?: string } } = JSON.parse(
        readFileSync(join(ROOT, 'node_modules', dep, 'package.json'), 'utf8'),
      );
      const major = /(\d+)/.exec(theirs.engines?.node ?? '0')?.[1];
      expect(Number(required), `${dep} needs node ${theirs.engines?.node}`).toBeGreaterThanOrEqual(
        Number(major),
      );
    }
  });

  it('compose runs the server and the migration read-only, without capabilities; Redis is there', () => {
    const composeFile: {
      services: Record<string, { read_only?: boolean; cap_drop?: string[]; image?: string }>;
    } = parse(read('docker-compose.yml'));
    for (const name of ['server', 'migrate', 'redis']) {
      expect(composeFile.services[name]?.read_only, name).toBe(true);
      expect(composeFile.services[name]?.cap_drop, name).toEqual(['ALL']);
    }
    expect(composeFile.services.redis?.image).toMatch(/^redis:/);
  });
});

// ---------------------------------------------------------------------------------------------
// Kubernetes API schemas (kubernetes-models), the production overlay, the admin Job

/** Every object of every YAML file under deploy/k8s but kustomizations and strategic-merge patches. */
function everyManifest(): Manifest[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory()
        ? walk(posix.join(dir, e.name))
        : /\.ya?ml$/.test(e.name) &&
            !/^kustomization\.ya?ml$/.test(e.name) &&
            !/\.patch\.ya?ml$/.test(e.name)
          ? [posix.join(dir, e.name)]
          : [],
    );
  return walk('deploy/k8s').flatMap((f) => manifestsIn(join(ROOT, f)));
}

/** A path into a parsed manifest (the objects are checked against the API schemas above). */
// oxlint-disable-next-line typescript/no-explicit-any -- manifests are read field by field
const at = (o: Json): any => o;
const kindOf = (m: Manifest): string => String(m.object.kind);
const nameOf = (m: Manifest): string => String(at(m.object).metadata?.name);
function one(manifests: Manifest[], kind: string, name?: string): Json {
  const found = manifests.filter(
    (m) => kindOf(m) === kind && (name === undefined || nameOf(m) === name),
  );
  if (found.length !== 1) throw new Error(`${found.length} ${kind} objects named ${name ?? '*'}`);
  return found[0].object;
}

/** A copy of `deployment` changed by `change`, as one manifest. */
function mutated(deployment: Json, change: (copy: Json) => void): Manifest[] {
  const copy = structuredClone(deployment);
  change(copy);
  return [{ source: 'mutated', object: copy }];
}

/** The Deployment as its file has it (before kustomize). */
const deploymentFile = (): Json =>
  one(manifestsIn(join(ROOT, BASE_DIR, 'deployment.yaml')), 'Deployment');

describe('Kubernetes API schemas (kubernetes-models, offline)', () => {
  it('the checkers catch a wrong type, a missing field and a field the API does not have', () => {
    const mistyped = mutated(deploymentFile(), (d) => {
      at(d).spec.template.spec.containers[0].ports[0].containerPort = 'http';
      delete at(d).spec.selector;
    });
    expect(schemaProblems(mistyped).join('\n')).toMatch(/containerPort must be integer/);
    expect(schemaProblems(mistyped).join('\n')).toMatch(/selector/);
    // An unknown field is valid to the API's JSON schemas; the TypeScript check refuses it.
    const misspelt = mutated(deploymentFile(), (d) => {
      const container = at(d).spec.template.spec.containers[0];
      container.readinesProbe = container.readinessProbe;
    });
    expect(schemaProblems(misspelt)).toEqual([]);
    expect(unknownFieldProblems(misspelt).join('\n')).toMatch(/'"readinesProbe"' does not exist/);
  });

  it('every manifest file validates, with no unknown field', () => {
    const all = everyManifest();
    expect(all.length).toBeGreaterThanOrEqual(10);
    expect(all.filter((m) => !isBuiltInKind(m)).map(kindOf)).toEqual(['ExternalSecret']);
    expect(schemaProblems(all)).toEqual([]);
    expect(unknownFieldProblems(all)).toEqual([]);
  });
});

/** Every kustomization directory: the base and each overlay (`deploy/k8s/overlays/<name>`). */
const KUSTOMIZATIONS: readonly string[] = [
  BASE_DIR,
  ...readdirSync(join(ROOT, OVERLAYS_DIR), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `${OVERLAYS_DIR}/${e.name}`),
];
const renders = new Map<string, Manifest[]>();
/** The render of a directory of this repository (rendered once: kubectl takes a second or two). */
function render(dir: string): Manifest[] {
  const done = renders.get(dir) ?? renderKustomization(join(ROOT, dir));
  renders.set(dir, done);
  return done;
}

describe('kubectl kustomize (the real one)', skipWhen(kustomizeUnavailable), () => {
  it.each(KUSTOMIZATIONS)('%s renders, and every object validates with no unknown field', (dir) => {
    const rendered = render(dir);
    expect(rendered.length).toBeGreaterThanOrEqual(7);
    expect(schemaProblems(rendered)).toEqual([]);
    expect(unknownFieldProblems(rendered)).toEqual([]);
    for (const m of rendered) {
      expect(at(m.object).metadata.labels?.['app.kubernetes.io/part-of'], nameOf(m)).toBe(
        'platform-mcp',
      );
      expect(at(m.object).metadata.namespace, nameOf(m)).toBe(
        kindOf(m) === 'Namespace' ? undefined : 'platform-mcp',
      );
    }
  });

  it('the production overlay is the base plus its ExternalSecret, its patches merged by name', () => {
    const base = render(BASE_DIR);
    const production = render(OVERLAY_DIR);
    expect(production.map((m) => `${kindOf(m)}/${nameOf(m)}`).sort()).toEqual(
      [...base.map((m) => `${kindOf(m)}/${nameOf(m)}`), 'ExternalSecret/mcp-server-secrets'].sort(),
    );
    const overlay = one(production, 'Deployment');
    const baseDeployment = one(base, 'Deployment');
    // The patch replaced resources of the one container and left everything else alone.
    const { resources: _patched, ...rest } = at(overlay).spec.template.spec.containers[0];
    const { resources: _base, ...baseRest } = at(baseDeployment).spec.template.spec.containers[0];
    expect({ ...rest, image: '' }).toEqual({ ...baseRest, image: '' });
    expect(at(overlay).spec.template.spec.containers).toHaveLength(1);
  });

  it('refuses what kustomize refuses: an overlay inside its own base, a patch that matches nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kustomize-'));
    try {
      const write = (path: string, text: string): void => {
        mkdirSync(join(dir, path, '..'), { recursive: true });
        writeFileSync(join(dir, path), text);
      };
      // The layout this repository had until the base moved to deploy/k8s/base.
      write('k8s/kustomization.yaml', 'resources:\n  - cm.yaml\n');
      write('k8s/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n');
      write('k8s/overlays/p/kustomization.yaml', 'resources:\n  - ../..\n');
      expect(() => renderKustomization(join(dir, 'k8s/overlays/p'))).toThrow(/cycle detected/);
      // Beside its base, an overlay renders; a patch that matches no object fails the render.
      write('base/kustomization.yaml', 'resources:\n  - cm.yaml\n');
      write('base/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n');
      write('o/kustomization.yaml', 'resources:\n  - ../base\n');
      expect(renderKustomization(join(dir, 'o')).map(nameOf)).toEqual(['c']);
      write('o/kustomization.yaml', 'resources:\n  - ../base\npatches:\n  - path: p.yaml\n');
      write(
        'o/p.yaml',
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: mcp-servr\nspec:\n  replicas: 9\n',
      );
      expect(() => renderKustomization(join(dir, 'o'))).toThrow(/mcp-servr/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe(
  'production overlay (deploy/k8s/overlays/production)',
  skipWhen(kustomizeUnavailable),
  () => {
    let production: Manifest[] = [];
    // oxlint-disable-next-line typescript/no-explicit-any -- manifests are read field by field
    let deployment: any, container: any, hpa: any, pdb: any, configMap: any, externalSecret: any;
    let secretName = '';
    beforeAll(() => {
      production = render(OVERLAY_DIR);
      deployment = at(one(production, 'Deployment', 'mcp-server'));
      container = deployment.spec.template.spec.containers[0];
      hpa = at(one(production, 'HorizontalPodAutoscaler', 'mcp-server'));
      pdb = at(one(production, 'PodDisruptionBudget', 'mcp-server'));
      configMap = at(one(production, 'ConfigMap', 'mcp-server-config'));
      externalSecret = at(one(production, 'ExternalSecret'));
      secretName = container.envFrom.find((e: Json) => e.secretRef !== undefined).secretRef.name;
    });

    it('takes its secrets from the secret store (External Secrets Operator), never from a file', () => {
      expect(production.filter((m) => kindOf(m) === 'Secret')).toEqual([]);
      expect(externalSecret.apiVersion).toBe('external-secrets.io/v1');
      expect(externalSecret.spec.target.name).toBe(secretName);
      expect(['SecretStore', 'ClusterSecretStore']).toContain(
        externalSecret.spec.secretStoreRef.kind,
      );
      const keys: string[] = externalSecret.spec.data.map((d: Json) => d.secretKey);
      expect(missingFrom(SERVER_ENV_KEYS, keys)).toEqual([]);
      expect(keys).toEqual(
        expect.arrayContaining(['DATABASE_URL', 'SERVER_SECRET_KEYS', 'REDIS_URL']),
      );
      for (const d of externalSecret.spec.data) expect(d.remoteRef.key, d.secretKey).toMatch(/\S/);
      // One place per key: nothing the Secret holds is also in the ConfigMap.
      expect(Object.keys(configMap.data).filter((k) => keys.includes(k))).toEqual([]);
    });

    it('runs more replicas with more resources, the HPA and the PDB in step', () => {
      expect(deployment.spec.replicas).toBe(hpa.spec.minReplicas);
      expect(deployment.spec.replicas).toBeGreaterThan(3);
      expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
      expect(pdb.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
      expect(container.resources.requests.cpu).toBe('500m');
      expect(container.resources.limits.memory).toBe('768Mi');
      // Each replica: its pool plus the token cache's LISTEN connection; the migration Job: its pool.
      const pool = Number(configMap.data.DB_POOL_SIZE);
      expect((hpa.spec.maxReplicas + 1) * (pool + 1) + pool).toBeLessThan(100);
    });

    it('keeps the base hardening, probes and command, and pins the image', () => {
      expect(container.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(deployment.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
      expect(container.readinessProbe.httpGet.path).toBe('/health/ready');
      for (const c of production.flatMap((m) => containersOf(m.object)))
        expect(String(c.image)).toMatch(
          /^registry\.example\.com\/platform\/platform-mcp:\d+\.\d+\.\d+$/,
        );
    });
  },
);

describe('the admin command as a Kubernetes Job and a compose service', () => {
  const [jobManifest] = manifestsIn(join(ROOT, BASE_DIR, ADMIN_JOB_FILE));
  const job = at(jobManifest.object);
  const pod = job.spec.template.spec;
  const container = pod.containers[0];
  const serverContainer = at(
    one(manifestsIn(join(ROOT, BASE_DIR, 'deployment.yaml')), 'Deployment'),
  ).spec.template.spec.containers[0];

  it('runs org:create once, as `npm run admin` does', () => {
    expect(container.command).toEqual(ADMIN_COMMAND);
    expect(container.args[0]).toBe('org:create');
    expect(container.args).toEqual(expect.arrayContaining(['--name', '--owner-email']));
    expect(container.args.filter((a: string) => a.startsWith('REPLACE_'))).toHaveLength(2);
    expect(job.spec.backoffLimit).toBe(0);
    expect(pod.restartPolicy).toBe('Never');
    expect(job.spec.ttlSecondsAfterFinished).toBeGreaterThan(0);
  });

  it('runs the image the base deploys', skipWhen(kustomizeUnavailable), () => {
    const rendered = at(one(render(BASE_DIR), 'Deployment')).spec.template.spec.containers[0];
    expect(container.image).toBe(rendered.image);
  });

  it("is non-root with a read-only root filesystem, and reads the server's config and Secret", () => {
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(envFromRefs(container)).toEqual(envFromRefs(serverContainer));
  });

  it('compose runs it on demand (profile admin), read-only, after the migrations', () => {
    const composeFile: {
      services: Record<
        string,
        { profiles?: string[]; entrypoint?: string[]; read_only?: boolean; cap_drop?: string[] }
      >;
    } = parse(read('docker-compose.yml'));
    const admin = composeFile.services.admin ?? {};
    expect(admin.profiles).toEqual(['admin']);
    expect(admin.entrypoint).toEqual(ADMIN_COMMAND);
    expect(admin.read_only).toBe(true);
    expect(admin.cap_drop).toEqual(['ALL']);
    expect(dependsOn(services.admin ?? {})).toEqual({
      postgres: 'service_healthy',
      migrate: 'service_completed_successfully',
    });
    expect(envOf(services.admin)).toEqual(serverEnv);
    expect(services.admin?.image).toBe(services.server?.image);
  });

  it('README and docs/operations.md say how to run it both ways', () => {
    for (const doc of ['README.md', 'docs/operations.md']) {
      const text = read(doc);
      expect(text, doc).toContain('npm run -s admin -- org:create');
      expect(text, doc).toContain(ADMIN_JOB_FILE);
      expect(text, doc).toContain('docker compose run --rm admin');
    }
  });
});
