import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { parse, parseAllDocuments } from 'yaml';

/**
 * Kubernetes manifests checked offline against the Kubernetes API, and kustomize overlays rendered
 * without kubectl, for test/ops/deploy.spec.ts.
 *
 * Two checks per object, both from `kubernetes-models` (generated from the Kubernetes OpenAPI
 * document):
 * - its JSON schema validator: types, formats, required fields (`validate()` of the model class);
 * - its TypeScript interface, through the compiler's excess-property check: a field the API does not
 *   have, at any depth (`readinesProbe`, `securityContext.readOnlyRootFs`), which the schema
 *   validator lets through because the API schemas allow unknown properties.
 */

const require = createRequire(import.meta.url);
const ROOT = resolve(import.meta.dirname, '../..');

export type Json = Record<string, unknown>;

/** One manifest object and where it came from (for messages). */
export interface Manifest {
  source: string;
  object: Json;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeOf(m: Manifest): { apiVersion: string; kind: string; name: string } {
  const { apiVersion, kind, metadata } = m.object;
  const name = isObject(metadata) ? metadata.name : undefined;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || typeof name !== 'string')
    throw new Error(`${m.source}: apiVersion, kind and metadata.name are required`);
  return { apiVersion, kind, name };
}

/** The `kubernetes-models` module of a built-in kind, or undefined for a custom resource. */
function modelModule(apiVersion: string, kind: string): string | undefined {
  if (!/^[a-z0-9.]+(\/v[0-9a-z]+)?$/.test(apiVersion) || !/^[A-Z][A-Za-z]+$/.test(kind))
    return undefined;
  const path = `kubernetes-models/${apiVersion}/${kind}`;
  return existsSync(join(ROOT, 'node_modules', `${path}.d.ts`)) ? path : undefined;
}

export function isBuiltInKind(m: Manifest): boolean {
  const { apiVersion, kind } = typeOf(m);
  return modelModule(apiVersion, kind) !== undefined;
}

/** Schema problems of built-in objects (`validate()`), one line each; custom resources skipped. */
export function schemaProblems(manifests: readonly Manifest[]): string[] {
  const problems: string[] = [];
  for (const m of manifests) {
    const { apiVersion, kind } = typeOf(m);
    const path = modelModule(apiVersion, kind);
    if (path === undefined) continue;
    const mod: Record<string, new (data: Json) => { validate(): void }> = require(path);
    const Model = mod[kind];
    try {
      new Model(m.object).validate();
    } catch (err) {
      problems.push(`${m.source} (${kind}): ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return problems;
}

/**
 * Fields the Kubernetes API does not have, at any depth, in built-in objects: each object becomes a
 * typed constant of its `kubernetes-models` interface in an in-memory TypeScript program, so the
 * compiler's excess-property (and type) checks speak for the API.
 */
export function unknownFieldProblems(manifests: readonly Manifest[]): string[] {
  const files = new Map<string, { source: string; text: string }>();
  manifests.forEach((m, i) => {
    const { apiVersion, kind } = typeOf(m);
    const path = modelModule(apiVersion, kind);
    if (path === undefined) return;
    const file = join(ROOT, `__k8s_manifest_${i}__.ts`);
    const text = `import type { I${kind} as T } from '${path}';\nexport const manifest: T = ${JSON.stringify(m.object, null, 2)};\n`;
    files.set(file, { source: `${m.source} (${kind})`, text });
  });
  if (files.size === 0) return [];
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    const own = files.get(name);
    return own === undefined
      ? getSourceFile(name, language, ...rest)
      : ts.createSourceFile(name, own.text, language);
  };
  host.fileExists = (name) => files.has(name) || fileExists(name);
  const program = ts.createProgram([...files.keys()], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file !== undefined && files.has(d.file.fileName))
    .map((d) => {
      const own = files.get(d.file?.fileName ?? '');
      return `${own?.source ?? '?'}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
}

/** Every document of a YAML file, as manifests. */
export function manifestsIn(file: string): Manifest[] {
  const source = relative(ROOT, file);
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d): unknown => d.toJS())
    .filter((o) => o !== null && o !== undefined)
    .map((object) => {
      if (!isObject(object)) throw new Error(`${source}: a document is not an object`);
      return { source, object };
    });
}

// ----------------------------------------------------------------------------- kustomize, minimal

/** The kustomization fields this renderer implements; any other field fails the render. */
const SUPPORTED = new Set([
  'apiVersion',
  'kind',
  'namespace',
  'labels',
  'resources',
  'patches',
  'images',
]);
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
]);

interface Kustomization {
  namespace?: string;
  labels?: { pairs: Record<string, string>; includeSelectors?: boolean }[];
  resources?: string[];
  patches?: { path?: string; patch?: string }[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
}

function readKustomization(dir: string): Kustomization {
  const file = ['kustomization.yaml', 'kustomization.yml']
    .map((f) => join(dir, f))
    .find((f) => existsSync(f));
  if (file === undefined) throw new Error(`${relative(ROOT, dir)}: no kustomization.yaml`);
  const value: unknown = parse(readFileSync(file, 'utf8'));
  if (!isObject(value)) throw new Error(`${relative(ROOT, file)}: not an object`);
  const unsupported = Object.keys(value).filter((k) => !SUPPORTED.has(k));
  if (unsupported.length > 0)
    throw new Error(
      `${relative(ROOT, file)}: ${unsupported.join(', ')} not implemented by this renderer`,
    );
  for (const label of Array.isArray(value.labels) ? value.labels : []) {
    if (isObject(label) && (label.includeSelectors === true || label.includeTemplates === true))
      throw new Error(`${relative(ROOT, file)}: labels with selectors/templates not implemented`);
  }
  // Every field is optional; each is read where it is used.
  return value;
}

/**
 * What `kubectl kustomize <dir>` renders, for the fields listed in {@link SUPPORTED}: resources
 * (files and nested kustomizations, rendered first, as kustomize does), strategic-merge `patches`
 * (each must match exactly one object by kind and name), then `namespace`, `labels` and `images`.
 */
export function renderKustomization(dir: string): Manifest[] {
  const k = readKustomization(dir);
  let objects: Manifest[] = [];
  for (const resource of k.resources ?? []) {
    const path = resolve(dir, resource);
    if (!existsSync(path)) throw new Error(`${relative(ROOT, dir)}: ${resource} does not exist`);
    objects.push(...(statSync(path).isDirectory() ? renderKustomization(path) : manifestsIn(path)));
  }
  for (const entry of k.patches ?? []) {
    const patches: Manifest[] =
      entry.path !== undefined
        ? manifestsIn(resolve(dir, entry.path))
        : entry.patch !== undefined
          ? parseAllDocuments(entry.patch).map((d) => {
              const object: unknown = d.toJS();
              if (!isObject(object)) throw new Error(`${relative(ROOT, dir)}: a bad inline patch`);
              return { source: `${relative(ROOT, dir)} (inline patch)`, object };
            })
          : [];
    if (patches.length === 0) throw new Error(`${relative(ROOT, dir)}: an empty patch entry`);
    for (const patch of patches) objects = applyPatch(objects, patch);
  }
  return objects.map((m) => ({
    source: m.source,
    object: transform(m.object, k),
  }));
}

/** The API group of an apiVersion (`apps` of `apps/v1`; the core group is ''). */
const groupOf = (apiVersion: string): string =>
  apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';

function applyPatch(objects: Manifest[], patch: Manifest): Manifest[] {
  const target = typeOf(patch);
  const matches = objects.filter((m) => {
    const t = typeOf(m);
    return (
      t.kind === target.kind &&
      t.name === target.name &&
      groupOf(t.apiVersion) === groupOf(target.apiVersion)
    );
  });
  if (matches.length !== 1)
    throw new Error(
      `${patch.source}: patch for ${target.kind}/${target.name} matches ${matches.length} objects`,
    );
  return objects.map((m) =>
    m === matches[0]
      ? {
          source: `${m.source} + ${patch.source}`,
          object: mergeObjects(m.object, patch.object),
        }
      : m,
  );
}

/** Merge keys of the lists this renderer merges item by item (others are replaced). */
function mergeKeyOf(path: readonly string[], items: unknown[]): string | undefined {
  const field = path[path.length - 1];
  if (['containers', 'initContainers', 'volumes', 'env', 'imagePullSecrets'].includes(field))
    return 'name';
  if (field === 'volumeMounts') return 'mountPath';
  if (field === 'ports')
    return items.some((i) => isObject(i) && 'containerPort' in i) ? 'containerPort' : 'port';
  return undefined;
}

function mergeObjects(base: Json, patch: Json): Json {
  const merged = merge(base, patch, []);
  if (!isObject(merged)) throw new Error('a strategic merge of two objects gave no object');
  return merged;
}

function merge(base: unknown, patch: unknown, path: readonly string[]): unknown {
  if (isObject(patch)) {
    if ('$patch' in patch || Object.keys(patch).some((k) => k.startsWith('$')))
      throw new Error(`strategic-merge directives are not implemented (at ${path.join('.')})`);
    const out: Json = isObject(base) ? { ...base } : {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete out[key];
      else out[key] = merge(out[key], value, [...path, key]);
    }
    return out;
  }
  if (Array.isArray(patch) && Array.isArray(base)) {
    const key = mergeKeyOf(path, [...base, ...patch]);
    if (key === undefined) return patch;
    const out = [...base];
    for (const item of patch) {
      const index = isObject(item) ? out.findIndex((b) => isObject(b) && b[key] === item[key]) : -1;
      if (index === -1) out.push(item);
      else out[index] = merge(out[index], item, [...path, String(index)]);
    }
    return out;
  }
  return patch;
}

function transform(object: Json, k: Kustomization): Json {
  const out = structuredClone(object);
  const metadata = isObject(out.metadata) ? out.metadata : (out.metadata = {});
  if (k.namespace !== undefined && !CLUSTER_SCOPED.has(String(out.kind)))
    metadata.namespace = k.namespace;
  for (const label of k.labels ?? [])
    metadata.labels = { ...(isObject(metadata.labels) ? metadata.labels : {}), ...label.pairs };
  for (const container of containersOf(out)) {
    const image = typeof container.image === 'string' ? container.image : '';
    const name = image.replace(/@.*$/, '').replace(/:[^:/]*$/, '');
    const rule = (k.images ?? []).find((i) => i.name === name);
    if (rule === undefined) continue;
    const tag =
      rule.digest !== undefined
        ? `@${rule.digest}`
        : rule.newTag !== undefined
          ? `:${rule.newTag}`
          : image.slice(name.length);
    container.image = `${rule.newName ?? name}${tag}`;
  }
  return out;
}

/** The containers of a Pod template wherever the kind keeps it (Deployment, Job, CronJob, Pod). */
export function containersOf(object: Json): Json[] {
  const spec = isObject(object.spec) ? object.spec : undefined;
  const podSpecs: unknown[] = [];
  if (object.kind === 'Pod') podSpecs.push(spec);
  const template = spec?.template;
  if (isObject(template)) podSpecs.push(template.spec);
  const jobTemplate = spec?.jobTemplate;
  if (isObject(jobTemplate) && isObject(jobTemplate.spec) && isObject(jobTemplate.spec.template))
    podSpecs.push(jobTemplate.spec.template.spec);
  return podSpecs.flatMap((p) =>
    isObject(p)
      ? [p.containers, p.initContainers].flatMap((list) =>
          Array.isArray(list) ? list.filter(isObject) : [],
        )
      : [],
  );
}
