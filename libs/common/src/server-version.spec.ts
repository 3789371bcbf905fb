import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readServerVersion } from './server-version.js';

describe('readServerVersion', () => {
  const root = mkdtempSync(join(tmpdir(), 'server-version-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reads this repository’s package.json version', () => {
    expect(readServerVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('walks up past other package.json files to the service’s own (as from dist/libs/…)', () => {
    writeFileSync(
      join(root, 'package.json'),
      JSON.stringify({ name: 'platform-mcp', version: '9.8.7' }),
    );
    const nested = join(root, 'dist', 'libs', 'mcp-server', 'src');
    mkdirSync(nested, { recursive: true });
    writeFileSync(
      join(root, 'dist', 'package.json'),
      JSON.stringify({ name: 'something-else', version: '1.0.0' }),
    );
    expect(readServerVersion(pathToFileURL(join(nested, 'x.js')).href)).toBe('9.8.7');
  });
});
