/**
 * The Kubernetes manifests: their shapes against the API schemas, the rendered overlays (with the
 * real kubectl when it is there), the production settings and the admin Job. No cluster is needed.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
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
import {
  ROOT,
  read,
  SERVER_ENV_KEYS,
  load,
  validateK8sObject,
  validateDeployment,
  validateJob,
  validateService,
  validatePdb,
  validateHpa,
  validateConfigMap,
  validateSecret,
  validateKustomization,
  loadYaml,
  k8sFiles,
  k8sDocuments,
  k8sObject,
  ADMIN_JOB_FILE,
  BASE_DIR,
  OVERLAYS_DIR,
  OVERLAY_DIR,
} from './support/deploy-schemas.js';
import {
  envOf,
  dependsOn,
  resolvePort,
  envFromRefs,
  missingFrom,
  services,
  serverEnv,
  SERVER_PORT,
  MIGRATE_COMMAND,
  ADMIN_COMMAND,
} from './support/deploy-checks.js';

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
    // Configuration comes from the ConfigMap and the Secret; the container's own env holds only
    // the pod's place in the cluster (downward API) for the traces' resource attributes.
    const env: Json[] = container.env ?? [];
    expect(env.map((e) => e.name)).toEqual([
      'K8S_POD_NAME',
      'K8S_NAMESPACE_NAME',
      'K8S_NODE_NAME',
      'OTEL_RESOURCE_ATTRIBUTES',
    ]);
    for (const e of env.slice(0, 3)) expect(JSON.stringify(e)).toContain('"fieldPath"');
    expect(JSON.stringify(env[3])).toContain('k8s.pod.name=$(K8S_POD_NAME)');
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
