/**
 * The deployment files' shapes, validated at load time (a wrong shape fails with its path), and
 * where they are: the loaders every deploy check reads through.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ENV_KEYS } from '@app/config';
import { Ajv, type SchemaObject, type ValidateFunction } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';

export const ROOT = resolve(import.meta.dirname, '../../..');
export const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** Every environment variable the server reads (the config lib's table is the source of truth). */
export const SERVER_ENV_KEYS: ReadonlySet<string> = new Set(ENV_KEYS.map(([env]) => env));

// ---------------------------------------------------------------------------------------------
// File shapes: what the checks read, validated at load time (a wrong shape fails with its path)

export const ajv = new Ajv({ allErrors: true, strict: false });
export const STR = { type: 'string' };
export const INT = { type: 'integer' };
export const SCALAR = { type: ['string', 'number', 'boolean', 'null'] };
export const STR_MAP = { type: 'object', additionalProperties: { type: 'string' } };
export const arrayOf = (items: SchemaObject): SchemaObject => ({ type: 'array', items });
export const objectOf = (
  properties: Record<string, SchemaObject>,
  required: string[] = [],
): SchemaObject => ({
  type: 'object',
  properties,
  required,
});

export function load<T>(validate: ValidateFunction<T>, value: unknown, what: string): T {
  if (!validate(value)) throw new Error(`${what}: ${ajv.errorsText(validate.errors)}`);
  return value;
}

export interface ComposeHealthcheck {
  test?: string | string[];
}
export type ComposePort = string | { target: number; published?: string | number };
export type ComposeVolume = string | { source?: string; target?: string };
export interface ComposeService {
  image?: string;
  build?: string | { context?: string };
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: ComposePort[];
  volumes?: ComposeVolume[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: ComposeHealthcheck;
  stop_grace_period?: string;
  /** Started only when one of these profiles is asked for (`docker compose --profile …`). */
  profiles?: string[];
}
export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}
export const STR_OR_LIST = { anyOf: [STR, arrayOf(STR)] };
export const validateCompose = ajv.compile<ComposeFile>(
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

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
}
export interface Probe {
  httpGet?: { path: string; port: number | string };
}
export interface Container {
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
export interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    containers: Container[];
    restartPolicy?: string;
    terminationGracePeriodSeconds?: number;
    securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  };
}
export interface Workload extends K8sObject {
  spec: {
    replicas?: number;
    selector?: { matchLabels: Record<string, string> };
    template: PodTemplate;
  };
}
export interface Service extends K8sObject {
  spec: {
    selector: Record<string, string>;
    ports: { port: number; targetPort: number | string }[];
  };
}
export interface Pdb extends K8sObject {
  spec: { minAvailable?: number; selector: { matchLabels: Record<string, string> } };
}
export interface Hpa extends K8sObject {
  spec: {
    scaleTargetRef: { kind: string; name: string };
    minReplicas: number;
    maxReplicas: number;
  };
}
export interface ConfigMap extends K8sObject {
  data: Record<string, string>;
}
export interface Secret extends K8sObject {
  stringData?: Record<string, string>;
  data?: Record<string, string>;
}
export interface Kustomization {
  namespace?: string;
  resources: string[];
  images?: { name: string }[];
}

export const META = objectOf({ name: STR, namespace: STR, labels: STR_MAP, annotations: STR_MAP }, [
  'name',
]);
export const k8s = (
  kind: string,
  spec: Record<string, SchemaObject>,
  required: string[],
): SchemaObject =>
  objectOf({ apiVersion: STR, kind: { const: kind }, metadata: META, ...spec }, [
    'apiVersion',
    'kind',
    'metadata',
    ...required,
  ]);
export const PORT_REF = { type: ['integer', 'string'] };
export const PROBE = objectOf({
  httpGet: objectOf({ path: STR, port: PORT_REF }, ['path', 'port']),
});
export const CONTAINER = objectOf(
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
export const POD_TEMPLATE = objectOf(
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
export const MATCH_LABELS = objectOf({ matchLabels: STR_MAP }, ['matchLabels']);

export const validateK8sObject = ajv.compile<K8sObject>(
  objectOf({ apiVersion: STR, kind: STR, metadata: META }, ['apiVersion', 'kind', 'metadata']),
);
export const validateDeployment = ajv.compile<Workload>(
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
export const validateJob = ajv.compile<Workload>(
  k8s('Job', { spec: objectOf({ template: POD_TEMPLATE }, ['template']) }, ['spec']),
);
export const validateService = ajv.compile<Service>(
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
export const validatePdb = ajv.compile<Pdb>(
  k8s(
    'PodDisruptionBudget',
    { spec: objectOf({ minAvailable: INT, selector: MATCH_LABELS }, ['selector']) },
    ['spec'],
  ),
);
export const validateHpa = ajv.compile<Hpa>(
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
export const validateConfigMap = ajv.compile<ConfigMap>(
  k8s('ConfigMap', { data: STR_MAP }, ['data']),
);
export const validateSecret = ajv.compile<Secret>(
  k8s('Secret', { stringData: STR_MAP, data: STR_MAP }, []),
);
export const validateKustomization = ajv.compile<Kustomization>(
  objectOf(
    {
      namespace: STR,
      resources: arrayOf(STR),
      images: arrayOf(objectOf({ name: STR }, ['name'])),
    },
    ['resources'],
  ),
);

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface AlertsFile {
  groups: { name: string; rules: AlertRule[] }[];
}
export const validateAlerts = ajv.compile<AlertsFile>(
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

export interface PrometheusConfig {
  rule_files?: string[];
  scrape_configs: {
    job_name: string;
    metrics_path?: string;
    static_configs?: { targets: string[] }[];
  }[];
}
export const validatePrometheus = ajv.compile<PrometheusConfig>(
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

export interface Dashboard {
  uid: string;
  panels: { id: number; type: string; targets?: { expr: string }[] }[];
}
export const validateDashboard = ajv.compile<Dashboard>(
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

export interface GrafanaDatasources {
  datasources: { uid: string; type: string; url: string }[];
}
export const validateDatasources = ajv.compile<GrafanaDatasources>(
  objectOf(
    { datasources: arrayOf(objectOf({ uid: STR, type: STR, url: STR }, ['uid', 'type', 'url'])) },
    ['datasources'],
  ),
);
export interface GrafanaDashboardProviders {
  providers: { type: string; options: { path: string } }[];
}
export const validateProviders = ajv.compile<GrafanaDashboardProviders>(
  objectOf(
    {
      providers: arrayOf(
        objectOf({ type: STR, options: objectOf({ path: STR }, ['path']) }, ['type', 'options']),
      ),
    },
    ['providers'],
  ),
);

export interface NestCli {
  projects: { server: { entryFile: string } };
}
export const validateNestCli = ajv.compile<NestCli>(
  objectOf(
    { projects: objectOf({ server: objectOf({ entryFile: STR }, ['entryFile']) }, ['server']) },
    ['projects'],
  ),
);

export const loadYaml = <T>(validate: ValidateFunction<T>, path: string): T =>
  load(validate, parse(read(path)), path);
export const loadJson = <T>(validate: ValidateFunction<T>, path: string): T =>
  load(validate, JSON.parse(read(path)), path);

export function k8sFiles(): string[] {
  return readdirSync(join(ROOT, BASE_DIR))
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
}

export function k8sDocuments(file: string): unknown[] {
  return parseAllDocuments(read(`${BASE_DIR}/${file}`)).map((d): unknown => d.toJS());
}

/** The first object of `file` whose kind matches, validated. */
export function k8sObject<T extends K8sObject>(
  validate: ValidateFunction<T>,
  kind: string,
  file: string,
): T {
  const doc = k8sDocuments(file).find((d) => load(validateK8sObject, d, file).kind === kind);
  if (doc === undefined) throw new Error(`no ${kind} in ${BASE_DIR}/${file}`);
  return load(validate, doc, `${BASE_DIR}/${file} (${kind})`);
}

// ---------------------------------------------------------------------------------------------

export const ADMIN_JOB_FILE = 'admin-org-create-job.yaml';
/** The kustomize base, beside its overlays (kustomize refuses an overlay inside its base). */
export const BASE_DIR = 'deploy/k8s/base';
export const OVERLAYS_DIR = 'deploy/k8s/overlays';
export const OVERLAY_DIR = `${OVERLAYS_DIR}/production`;
