import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'platform-mcp';

/**
 * The service's version as `package.json` states it (the MCP `serverInfo.version`). Read once at
 * boot by walking up from this file: the same lookup works from `libs/…/src` (tests), from
 * `dist/libs/…/src` (the build) and in the image (`/app/package.json` next to `/app/dist`).
 */
export function readServerVersion(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    const version = versionAt(join(dir, 'package.json'));
    if (version !== undefined) return version;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`readServerVersion: no package.json named "${PACKAGE_NAME}" above ${from}`);
}

function versionAt(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const pkg: unknown = JSON.parse(text);
  if (typeof pkg !== 'object' || pkg === null || !('name' in pkg) || !('version' in pkg))
    return undefined;
  return pkg.name === PACKAGE_NAME && typeof pkg.version === 'string' && pkg.version !== ''
    ? pkg.version
    : undefined;
}
