// node:fs as it is, plus the `globSync` that Node 20 lacks (Node 22 added it). The conformance
// suite imports it at load time but only its `tier-check` command calls it, which we never run.
import fs from 'node:fs';

export * from 'node:fs';
export default fs;

export function globSync() {
  throw new Error(
    'fs.globSync is not available on this Node version (conformance tier-check needs Node 22)',
  );
}
