/** A UTF-16 surrogate without its other half: JSON's `"\ud800"` parses to one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a string a client sent (a value or a field name) is not acceptable text, or `undefined`:
 * U+0000 (Postgres `text` and `jsonb` cannot hold it) and lone UTF-16 surrogates (not Unicode at
 * all; `jsonb` refuses them and validator.js throws on them). The REST API, the MCP methods and
 * the OAuth server refuse the same strings with this one rule.
 */
export function textRefusal(text: string): string | undefined {
  if (text.includes('\u0000')) return 'the character U+0000';
  if (LONE_SURROGATE.test(text)) return 'a lone UTF-16 surrogate (not valid Unicode)';
  return undefined;
}

/**
 * Names of members every JavaScript object has (`constructor`, `__proto__`, `toString`,
 * `valueOf`, `hasOwnProperty`, `__defineGetter__`, … read from the running engine, so none is
 * forgotten) and `prototype`. As a field name in client input each one either breaks the code that
 * reads the object (class-transformer takes a nested `constructor` object for the type to build
 * and throws; `String(x)` throws once `toString` is a string) or changes what an object is
 * (`__proto__`). No input of ours has such a field, so they are refused wherever they appear.
 */
const PROTOTYPE_MEMBER_NAMES: ReadonlySet<string> = new Set([
  ...Object.getOwnPropertyNames(Object.prototype),
  'prototype',
]);

export function isPrototypeMemberName(key: string): boolean {
  return PROTOTYPE_MEMBER_NAMES.has(key);
}

/**
 * The first string or key anywhere in a JSON value that {@link textRefusal} refuses, as
 * "`path` must not contain …", or `undefined`. For storage that holds whole documents (`jsonb`),
 * whose every string must be acceptable text.
 */
export function textRefusalIn(value: unknown, path = 'value'): string | undefined {
  if (typeof value === 'string') {
    const why = textRefusal(value);
    return why === undefined ? undefined : `${path} must not contain ${why}`;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const why = textRefusal(key);
    if (why !== undefined) return `${path} must not have a member whose name contains ${why}`;
    const inner = textRefusalIn(item, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`);
    if (inner !== undefined) return inner;
  }
  return undefined;
}
