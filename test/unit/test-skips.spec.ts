import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A test that does not run says why in the run's output: tests skip only through
 * `skipWhen(reason)` (test/support/skip.ts, whose reason the skip reporter prints) or
 * `context.skip(reason)`, never through vitest's reasonless `.skip`, `.skipIf` or `.runIf`.
 */
const SELF = fileURLToPath(import.meta.url);
const ROOT = resolve(dirname(SELF), '../..');
const REASONLESS = /\b(?:describe|it|test|suite)\s*\.\s*(?:skip|skipIf|runIf)\b/g;
const BARE_CONTEXT_SKIP = /\b(?:context|ctx)\s*\.\s*skip\s*\(\s*\)/g;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return /\.(spec|e2e-spec)\.ts$/.test(name) && path !== SELF ? [path] : [];
  });
}

describe('skipped tests', () => {
  it('give their reason: no .skip, .skipIf, .runIf or context.skip() without one', () => {
    const found = ['apps', 'libs', 'test'].flatMap((dir) =>
      testFiles(join(ROOT, dir)).flatMap((file) => {
        const source = readFileSync(file, 'utf8');
        return [...source.matchAll(REASONLESS), ...source.matchAll(BARE_CONTEXT_SKIP)].map(
          (m) =>
            `${relative(ROOT, file)}: ${m[0]} (use skipWhen(reason) from test/support/skip.ts)`,
        );
      }),
    );
    expect(found).toEqual([]);
  });

  it('the check finds the reasonless forms it refuses', () => {
    const sample = "describe.skipIf(x)('a', f); it.runIf(y)('b', g); test.skip('c'); ctx.skip();";
    expect(
      [...sample.matchAll(REASONLESS), ...sample.matchAll(BARE_CONTEXT_SKIP)].map((m) => m[0]),
    ).toEqual(['describe.skipIf', 'it.runIf', 'test.skip', 'ctx.skip()']);
  });
});
