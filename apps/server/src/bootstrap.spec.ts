import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedServerSecret } from './bootstrap.js';

describe('the embedded default’s server secret', () => {
  let dir: string;
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('is generated once and then reused', async () => {
    dir = await mkdtemp(join(tmpdir(), 'secret-'));
    const first = await embeddedServerSecret(dir);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(await embeddedServerSecret(dir)).toBe(first);
    expect((await readFile(join(dir, 'server-secret-key'), 'utf8')).trim()).toBe(first);
  });

  it('keeps the key of a data directory from before the rename (sessions survive the upgrade)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'secret-'));
    const old = 'o'.repeat(64);
    await writeFile(join(dir, 'confirmation-key'), `${old}\n`);
    expect(await embeddedServerSecret(dir)).toBe(old);
    expect(await embeddedServerSecret(dir)).toBe(old);
  });
});
