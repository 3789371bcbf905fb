import { createHash } from 'node:crypto';

/** Deeper values are refused (tool arguments are shallow; this bounds the recursion). */
export const MAX_ARGUMENTS_DEPTH = 64;

/**
 * Canonical JSON: object keys sorted recursively (by UTF-16 code units), no whitespace, array
 * order kept. Only JSON data is accepted (what a parsed JSON-RPC message can hold): `undefined`
 * object members are left out, as `JSON.stringify` does; anything else that is not JSON data
 * (non-finite numbers, bigint, functions, class instances, cycles, nesting deeper than
 * {@link MAX_ARGUMENTS_DEPTH}) throws a TypeError.
 */
export function canonicalJson(value: unknown): string {
  return write(value, 0);
}

/**
 * sha-256 hex of the canonical JSON of a tool's arguments. Absent arguments (`undefined`, the
 * `arguments` member omitted) count as `{}`, the same call in MCP.
 */
export function argumentsDigest(args: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(args === undefined ? {} : args), 'utf8')
    .digest('hex');
}

function write(value: unknown, depth: number): string {
  if (depth > MAX_ARGUMENTS_DEPTH) {
    throw new TypeError(`arguments nest deeper than ${MAX_ARGUMENTS_DEPTH} levels`);
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('arguments hold a non-finite number');
      return JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        return `[${Array.from(value, (item: unknown) => (item === undefined ? 'null' : write(item, depth + 1))).join(',')}]`;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new TypeError('arguments hold a value that is not JSON data');
      }
      const entries: Array<[string, unknown]> = Object.entries(value);
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const members: string[] = [];
      for (const [key, member] of entries) {
        if (member === undefined) continue;
        members.push(`${JSON.stringify(key)}:${write(member, depth + 1)}`);
      }
      return `{${members.join(',')}}`;
    }
    case 'undefined':
    case 'bigint':
    case 'function':
    case 'symbol':
      throw new TypeError(`arguments hold a ${typeof value}, which is not JSON data`);
  }
  throw new TypeError('arguments hold a value that is not JSON data');
}
