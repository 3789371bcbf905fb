import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every tier runs with `isolate: false` (vitest.config.ts): the files one worker runs share its
 * module cache and its `process`. That is sound only while no file replaces a module or changes
 * what the next file finds: no `vi.mock` / `vi.doMock`, no stubbed environment or global, no
 * assignment to or deletion from `process.env`, and fake timers only where the same file puts the
 * real ones back. A test that needs one of those passes the setting to what it builds (a config
 * object, the server it starts) instead, or becomes a project of its own with `isolate: true`.
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

/** Every test file of every tier, but this one (whose samples show what the check refuses). */
function testFiles(): string[] {
  return ['apps', 'libs', 'test']
    .flatMap((dir) => files(join(ROOT, dir), /\.(spec|e2e-spec)\.ts$/))
    .filter((file) => file !== SELF);
}

describe('files that share a worker’s module cache (every tier)', () => {
  it('mock no module and change no environment or global', () => {
    const shared = testFiles();
    expect(shared.length).toBeGreaterThan(130);
    const found = shared.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(SHARED_STATE)].map(
        (m) => `${relative(ROOT, file)}: ${m[0]}`,
      ),
    );
    expect(found).toEqual([]);
  });

  it('put the real timers back wherever they fake them', () => {
    const faking = testFiles().filter((file) =>
      /\bvi\s*\.\s*useFakeTimers\s*\(/.test(readFileSync(file, 'utf8')),
    );
    expect(faking.length).toBeGreaterThan(0);
    const leaving = faking
      .filter((file) => !/\bvi\s*\.\s*useRealTimers\s*\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
    expect(leaving).toEqual([]);
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
