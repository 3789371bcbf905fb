import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The integration and e2e tiers run with `isolate: false` (vitest.config.ts): the files one worker
 * runs share its module cache and its `process`. That is sound only while no file of theirs
 * replaces a module or changes what the next file finds: no `vi.mock` / `vi.doMock`, no stubbed
 * environment or global, no assignment to or deletion from `process.env`. A file that needs one of
 * those belongs in the unit tier (isolated), or passes the setting to the server it starts.
 */
const SELF = fileURLToPath(import.meta.url);
const ROOT = resolve(dirname(SELF), '../..');
const SHARED_STATE =
  /\bvi\s*\.\s*(?:mock|doMock|stubEnv|stubGlobal)\s*\(|\bprocess\.env(?:\.\w+|\[[^\]]+\])\s*(?:=(?!=)|\?\?=|\|\|=)|\bdelete\s+process\.env\b/g;

function files(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path, pattern);
    return pattern.test(name) ? [path] : [];
  });
}

describe('files that share a worker’s module cache (integration, e2e)', () => {
  it('mock no module and change no environment or global', () => {
    const shared = [
      ...files(join(ROOT, 'test/integration'), /\.spec\.ts$/),
      ...files(join(ROOT, 'test/e2e'), /(?<!\.browser)\.e2e-spec\.ts$/),
      ...['apps', 'libs'].flatMap((dir) => files(join(ROOT, dir), /\.integration\.spec\.ts$/)),
    ];
    expect(shared.length).toBeGreaterThan(50);
    const found = shared.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(SHARED_STATE)].map(
        (m) => `${relative(ROOT, file)}: ${m[0]}`,
      ),
    );
    expect(found).toEqual([]);
  });

  it('the check finds the forms it refuses, and leaves reads alone', () => {
    const sample = [
      "vi.mock('pg');",
      "vi.stubEnv('A', 'b');",
      "process.env.DATABASE_URL = 'x';",
      "process.env['A'] ??= 'y';",
      'delete process.env.REDIS_URL;',
      "const url = process.env.REDIS_URL === '' ? undefined : process.env.REDIS_URL;",
    ].join('\n');
    expect([...sample.matchAll(SHARED_STATE)].map((m) => m[0])).toEqual([
      'vi.mock(',
      'vi.stubEnv(',
      'process.env.DATABASE_URL =',
      "process.env['A'] ??=",
      'delete process.env',
    ]);
  });
});
