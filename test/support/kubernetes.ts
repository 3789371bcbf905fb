import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';

/**
 * Kubernetes manifests checked offline against the Kubernetes API, and kustomizations rendered by
 * the real `kubectl kustomize`, for test/ops/kubernetes.spec.ts.
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

/** Every document of a YAML text, as manifests from `source`. */
function manifestsOf(text: string, source: string): Manifest[] {
  return parseAllDocuments(text)
    .map((d): unknown => d.toJS())
    .filter((o) => o !== null && o !== undefined)
    .map((object) => {
      if (!isObject(object)) throw new Error(`${source}: a document is not an object`);
      return { source, object };
    });
}

/** Every document of a YAML file, as manifests. */
export function manifestsIn(file: string): Manifest[] {
  return manifestsOf(readFileSync(file, 'utf8'), relative(ROOT, file));
}

// ------------------------------------------------------------------------------ kustomize (real)

/** The kustomize major version kubectl must carry: the files use `labels` and `patches` of v5. */
const KUSTOMIZE_MAJOR = 5;

function kubectlKustomizeVersion(): string | undefined {
  try {
    const out = execFileSync('kubectl', ['version', '--client', '-o', 'json'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const parsed: unknown = JSON.parse(out);
    return isObject(parsed) && typeof parsed.kustomizeVersion === 'string'
      ? parsed.kustomizeVersion
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why `kubectl kustomize` cannot render here (no kubectl on the PATH, or one whose kustomize is too
 * old for these files), or undefined when it can. The rendering checks skip with this message.
 */
export const kustomizeUnavailable: string | undefined = (() => {
  const version = kubectlKustomizeVersion();
  if (version === undefined) return 'no kubectl on the PATH (or it names no kustomize version)';
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  return major >= KUSTOMIZE_MAJOR
    ? undefined
    : `kubectl carries kustomize ${version}, older than v${KUSTOMIZE_MAJOR}`;
})();

/**
 * What `kubectl kustomize <dir>` renders, as manifests. A render kustomize refuses throws with
 * kubectl's own message.
 */
export function renderKustomization(dir: string): Manifest[] {
  const source = `kubectl kustomize ${relative(ROOT, dir) || dir}`;
  const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
  if (result.error !== undefined) throw result.error;
  if (result.status !== 0) throw new Error(`${source}: ${result.stderr.trim()}`);
  return manifestsOf(result.stdout, source);
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
