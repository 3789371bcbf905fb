/**
 * Pure helpers for the MCP HTTP headers. No state, no allocation beyond the returned value.
 */

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const SENTINEL_MIN_LENGTH = SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length;
/** Standard alphabet, padded, length a multiple of 4 (SEP-2243: invalid base64 ⇒ reject). */
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Strips optional whitespace (SP / HTAB) around a field value, as RFC 9110 §5.5 requires. */
export function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOws(value.charCodeAt(start))) start++;
  while (end > start && isOws(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/** RFC 9110 field-value characters as they reach us: visible ASCII, SP, HTAB. */
function hasOnlyFieldValueChars(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code !== 0x09 && (code < 0x20 || code > 0x7e)) return false;
  }
  return true;
}

/**
 * Decodes an `Mcp-Name` / `Mcp-Param-*` header value (SEP-2243 "Value Encoding").
 *
 * - Surrounding whitespace is trimmed first.
 * - `=?base64?<b64>?=` (lowercase markers only) is decoded to the UTF-8 string it wraps. The base64
 *   must be canonical standard-alphabet base64 with padding, and the bytes valid UTF-8.
 * - Anything else — including `=?BASE64?…?=` — is the literal value.
 *
 * Returns `null` when the value is malformed: invalid base64 inside the sentinel, invalid UTF-8, or
 * characters a header value may not contain (non-ASCII, control characters). Callers reject those
 * with -32020.
 */
export function decodeHeaderValue(raw: string): string | null {
  const value = trimOws(raw);
  if (!hasOnlyFieldValueChars(value)) return null;
  if (
    value.length < SENTINEL_MIN_LENGTH ||
    !value.startsWith(SENTINEL_PREFIX) ||
    !value.endsWith(SENTINEL_SUFFIX)
  ) {
    return value;
  }
  const encoded = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!STRICT_BASE64.test(encoded)) return null;
  const bytes = Buffer.from(encoded, 'base64');
  // Non-zero trailing bits ("SGVsbG9=") decode leniently in Node; insist on the canonical form.
  if (bytes.toString('base64') !== encoded) return null;
  try {
    return UTF8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Whether a response of `application/json` satisfies the request's `Accept` header.
 *
 * Decision: the spec asks clients to list both `application/json` and `text/event-stream`, but this
 * server answers `application/json` unless a call sends messages before its result (then, and only
 * if the client named `text/event-stream`, an SSE stream), and real clients send imperfect
 * Accept headers. So we accept: no Accept header (or an empty one), or one naming `application/json`,
 * `application/*` or the full wildcard (star/star) with a non-zero q. Anything else (e.g. only
 * `text/event-stream`, or `application/json;q=0`) cannot be satisfied: the controller answers 406.
 */
export function isAcceptable(acceptHeader: string | undefined): boolean {
  if (acceptHeader === undefined) return true;
  if (trimOws(acceptHeader) === '') return true;
  for (const range of acceptHeader.split(',')) {
    const semicolon = range.indexOf(';');
    const type = trimOws(semicolon === -1 ? range : range.slice(0, semicolon)).toLowerCase();
    if (type !== 'application/json' && type !== 'application/*' && type !== '*/*') continue;
    if (semicolon === -1 || !hasZeroQuality(range.slice(semicolon + 1))) return true;
  }
  return false;
}

/**
 * Whether the client named `text/event-stream` (with a non-zero quality) in Accept: only then may a
 * response be a stream. A wildcard is not enough: a client that never asked for SSE may not parse it.
 */
export function acceptsEventStream(acceptHeader: string | undefined): boolean {
  if (acceptHeader === undefined) return false;
  for (const range of acceptHeader.split(',')) {
    const semicolon = range.indexOf(';');
    const type = trimOws(semicolon === -1 ? range : range.slice(0, semicolon)).toLowerCase();
    if (type !== 'text/event-stream') continue;
    if (semicolon === -1 || !hasZeroQuality(range.slice(semicolon + 1))) return true;
  }
  return false;
}

/** True when the media-range parameters contain `q=0` (0, 0.0, 0.000): "not acceptable". */
function hasZeroQuality(parameters: string): boolean {
  for (const parameter of parameters.split(';')) {
    const eq = parameter.indexOf('=');
    if (eq === -1) continue;
    if (trimOws(parameter.slice(0, eq)).toLowerCase() !== 'q') continue;
    return /^0(?:\.0{0,3})?$/.test(trimOws(parameter.slice(eq + 1)));
  }
  return false;
}
