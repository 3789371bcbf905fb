import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md's library graph against the code: every library's production sources
 * import exactly the libraries the document lists for it, only through their entry points, and
 * the graph has no cycle.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LIBS = join(ROOT, 'libs');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !/\.(spec|e2e-spec)\.ts$/.test(name) ? [path] : [];
  });
}

/** Module specifiers of static imports and re-exports (what loading the file loads). */
function staticSpecifiers(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/(?:^|\s)(?:import|export)\s[^'";]*?from\s*'([^']+)'/g))
    found.push(m[1]);
  for (const m of source.matchAll(/(?:^|\s)import\s*'([^']+)'/g)) found.push(m[1]);
  return found;
}

/** Module specifiers of static imports, re-exports and dynamic imports. */
function specifiers(source: string): string[] {
  const found = staticSpecifiers(source);
  for (const m of source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) found.push(m[1]);
  return found;
}

/**
 * The repository's source files that loading `entries` loads: static imports followed through
 * relative paths and `@app/<lib>` entry points (packages left out; dynamic imports not followed).
 */
function staticClosure(entries: string[]): Set<string> {
  const reached = new Set<string>();
  const pending = [...entries];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (reached.has(file)) continue;
    reached.add(file);
    for (const spec of staticSpecifiers(readFileSync(file, 'utf8'))) {
      const app = /^@app\/([^/]+)$/.exec(spec);
      if (app !== null) pending.push(join(LIBS, app[1], 'src/index.ts'));
      else if (spec.startsWith('.'))
        pending.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
    }
  }
  return reached;
}

function declaredGraph(): Map<string, Set<string>> {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const block = /<!-- graph:begin -->\s*```text\n([\s\S]*?)```\s*<!-- graph:end -->/.exec(doc);
  if (block === null) throw new Error('docs/architecture.md: no graph block between the markers');
  const graph = new Map<string, Set<string>>();
  for (const line of block[1].split('\n').filter((l) => l.trim() !== '')) {
    const [lib, ...deps] = line.trim().split(/\s+/);
    graph.set(lib, new Set(deps.filter((d) => d !== '—')));
  }
  return graph;
}

interface Scan {
  graph: Map<string, Set<string>>;
  violations: string[];
}

function scanLibraries(): Scan {
  const graph = new Map<string, Set<string>>();
  const violations: string[] = [];
  const libraries = readdirSync(LIBS).filter((n) => statSync(join(LIBS, n)).isDirectory());
  for (const lib of libraries) {
    const deps = new Set<string>();
    const libRoot = join(LIBS, lib) + sep;
    for (const file of sourceFiles(join(LIBS, lib, 'src'))) {
      const where = relative(ROOT, file);
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        const app = /^@app\/([^/]+)(\/.*)?$/.exec(spec);
        if (app !== null) {
          if (app[2] !== undefined) violations.push(`${where}: deep import ${spec}`);
          if (app[1] !== lib) deps.add(app[1]);
          else violations.push(`${where}: imports its own library through ${spec}`);
        } else if (spec.startsWith('.')) {
          if (!resolve(dirname(file), spec).startsWith(libRoot))
            violations.push(`${where}: relative import ${spec} leaves libs/${lib}`);
        }
      }
    }
    graph.set(lib, deps);
  }
  return { graph, violations };
}

function cycleIn(graph: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (node: string, path: string[]): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'visiting') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'visiting');
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next, [...path, node]);
      if (cycle !== undefined) return cycle;
    }
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node, []);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

const sorted = (s: Set<string> | undefined): string[] => [...(s ?? [])].sort();

describe('the library graph (docs/architecture.md)', () => {
  const declared = declaredGraph();
  const actual = scanLibraries();

  it('lists every library, and only libraries that exist', () => {
    expect([...declared.keys()].sort()).toEqual([...actual.graph.keys()].sort());
  });

  it('matches the imports of every library exactly', () => {
    const drift = [...actual.graph.keys()].flatMap((lib) => {
      const want = sorted(declared.get(lib));
      const have = sorted(actual.graph.get(lib));
      const extra = have.filter((d) => !want.includes(d));
      const missing = want.filter((d) => !have.includes(d));
      return [
        ...extra.map((d) => `${lib} imports ${d}, which the graph does not allow`),
        ...missing.map((d) => `${lib} is declared to import ${d} but does not`),
      ];
    });
    expect(drift, 'update the code or the graph in docs/architecture.md').toEqual([]);
  });

  it('reaches other libraries only through their entry points', () => {
    expect(actual.violations).toEqual([]);
  });

  it('has no cycle', () => {
    expect(cycleIn(declared)).toBeUndefined();
    expect(cycleIn(actual.graph)).toBeUndefined();
  });

  it('the checker itself sees a cycle and a deep import when there is one', () => {
    const looped = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['a'])],
    ]);
    expect(cycleIn(looped)).toEqual(['a', 'b', 'a']);
    expect(specifiers("import { x } from '@app/identity/src/principal.js';")).toEqual([
      '@app/identity/src/principal.js',
    ]);
    expect(specifiers("export * from './a.js';\nconst m = await import('@app/b');")).toEqual([
      './a.js',
      '@app/b',
    ]);
  });
});

/** The testing-only files among `files` (the conformance fixtures and their entry). */
const testingOnly = (files: Set<string>): string[] =>
  [...files]
    .map((f) => relative(ROOT, f))
    .filter(
      (f) =>
        f.startsWith('libs/mcp-conformance-fixtures/') || f.endsWith('/conformance-fixtures.ts'),
    );

describe('what production loads', () => {
  // serve.ts is the server itself: main.ts imports it dynamically, once tracing has started.
  const entries = ['main.ts', 'serve.ts', 'migrate.ts', 'admin.ts'].map((f) =>
    join(ROOT, 'apps/server/src', f),
  );
  it('never loads the conformance fixtures: they come in by a dynamic import, only under their flag', () => {
    expect(testingOnly(staticClosure(entries))).toEqual([]);
  });

  it('the closure follows entry points and relative imports (the fixtures entry reaches its library)', () => {
    const fixtures = staticClosure([join(ROOT, 'apps/server/src/conformance-fixtures.ts')]);
    expect(testingOnly(fixtures)).toContain('libs/mcp-conformance-fixtures/src/fixtures.ts');
    expect(staticClosure(entries)).toContain(join(ROOT, 'libs/mcp-tools/src/tool-executor.ts'));
  });
});

const CONSOLE = join(ROOT, 'apps/admin-console/src');

/**
 * What the admin console's sources (`.ts`, `.tsx`) import from outside the console, as
 * `console file → specifier` lines; `libs` lists the server files they reach.
 */
function consoleReach(dir: string): { outside: string[]; libs: string[] } {
  const outside: string[] = [];
  const libs: string[] = [];
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!/\.tsx?$/.test(name)) continue;
    const file = join(dir, name);
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('@app/')) outside.push(`${name} → ${spec}`);
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      if (target.startsWith(dir + sep)) continue;
      if (target.startsWith(LIBS + sep)) libs.push(target);
      else outside.push(`${name} → ${spec}`);
    }
  }
  return { outside, libs };
}

describe('the admin console (a browser bundle, docs/architecture.md)', () => {
  it('takes from the server only declarations: files under libs that import nothing', () => {
    const { outside, libs } = consoleReach(CONSOLE);
    expect(outside).toEqual([]);
    const importing = libs.filter((f) => specifiers(readFileSync(f, 'utf8')).length > 0);
    expect(importing.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it('the scan sees what the console takes from the server', () => {
    expect(consoleReach(CONSOLE).libs).toContain(join(LIBS, 'audit-trail/src/audit-vocabulary.ts'));
  });
});

/** docs/architecture.md's table owners: table → [the writing file, ...files that also read it]. */
function declaredTableOwners(): Map<string, { owner: string; readers: string[] }> {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const block = /<!-- tables:begin -->\s*```text\n([\s\S]*?)```\s*<!-- tables:end -->/.exec(doc);
  if (block === null)
    throw new Error('docs/architecture.md: no table-owner block between the markers');
  const owners = new Map<string, { owner: string; readers: string[] }>();
  for (const line of block[1].split('\n').filter((l) => l.trim() !== '')) {
    const [table, owner, ...readers] = line.trim().split(/\s+/);
    owners.set(table, { owner, readers });
  }
  return owners;
}

/** The tables the migrations create (a partition, `CREATE TABLE x PARTITION OF`, is its parent's). */
function migratedTables(): string[] {
  const dir = join(LIBS, 'database/src/migrations');
  const names = sourceFiles(dir).flatMap((f) =>
    [...readFileSync(f, 'utf8').matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)\s*\(/g)].map(
      (m) => m[1],
    ),
  );
  return [...new Set(names)].sort();
}

/** `lib/file-stem` of every production source whose SQL writes (or only reads) `table`. */
function sqlNaming(table: string): { writers: string[]; readers: string[] } {
  const writes = new RegExp(
    `(?:INSERT INTO|UPDATE|DELETE FROM)\\s+${table}\\b|tableName: '${table}'`,
  );
  // A `RowSource` (`{ table: 'accounts', … }`, database/organization-row) is its file's read.
  const reads = new RegExp(`(?:FROM|JOIN)\\s+${table}\\b|RowSource = \\{ table: '${table}'`);
  const writers: string[] = [];
  const readers: string[] = [];
  for (const file of sourceFiles(LIBS)) {
    if (file.includes(`${sep}migrations${sep}`)) continue;
    const source = readFileSync(file, 'utf8');
    const name = relative(LIBS, file).replace(`${sep}src${sep}`, '/').replace(/\.ts$/, '');
    if (writes.test(source)) writers.push(name);
    else if (reads.test(source)) readers.push(name);
  }
  return { writers, readers };
}

describe('the table owners (docs/architecture.md, rule 3)', () => {
  const declared = declaredTableOwners();

  it('lists every table the migrations create, and only those', () => {
    expect([...declared.keys()].sort()).toEqual(migratedTables());
  });

  it('each table is written by its owner alone, and read only by the files listed with it', () => {
    const drift = [...declared].flatMap(([table, { owner, readers }]) => {
      const found = sqlNaming(table);
      return [
        ...found.writers
          .filter((w) => w !== owner)
          .map((w) => `${w} writes ${table}, owned by ${owner}`),
        ...found.readers
          .filter((r) => r !== owner && !readers.includes(r))
          .map((r) => `${r} reads ${table}, which the table owners do not list`),
        ...(found.writers.includes(owner) || found.readers.includes(owner)
          ? []
          : [`${owner} is declared the owner of ${table} but its SQL never names it`]),
        ...readers
          .filter((r) => !found.readers.includes(r) && !found.writers.includes(r))
          .map((r) => `${r} is listed as reading ${table} but does not`),
      ];
    });
    expect(drift, 'update the code or the table owners in docs/architecture.md').toEqual([]);
  });

  it('the scan sees a write and a read where there is one', () => {
    const { writers, readers } = sqlNaming('portal_users');
    expect(writers).toEqual(['portal-users/portal-users.repository']);
    expect(readers).toContain('accounts/accounts.repository');
  });
});

describe('newest-first lists (docs/architecture.md, rule 4)', () => {
  it('are all built by newestFirstQuery: no other production source orders by a time and id descending', () => {
    const handRolled = [...sourceFiles(LIBS), ...sourceFiles(join(ROOT, 'apps/server/src'))]
      .filter((f) => !f.includes(`${sep}migrations${sep}`))
      .filter((f) => /ORDER BY\s+\$?\{?\w+\}?\s+DESC,\s*id DESC/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(handRolled).toEqual(['libs/rest-contract/src/newest-first-query.ts']);
  });
});
