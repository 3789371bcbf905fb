/** The longest client-supplied string kept (client name and version, an unknown tool's name). */
export const MAX_CLIENT_STRING_LENGTH = 200;

const CONTROL = /\p{Cc}/gu;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A string a client chose (its `clientInfo` name and version, a user agent, the name of a tool
 * that does not exist) as it may be stored and logged: control characters (U+0000 included)
 * removed, lone surrogates replaced by U+FFFD, surrounding space trimmed, at most `max` code
 * points. Always storable in Postgres `text` and in a btree index, whatever the client sent.
 */
export function normalizeClientString(value: string, max = MAX_CLIENT_STRING_LENGTH): string {
  const clean = value.replace(CONTROL, '').replace(LONE_SURROGATE, '\uFFFD').trim();
  const codePoints = Array.from(clean);
  return codePoints.length <= max ? clean : codePoints.slice(0, max).join('').trimEnd();
}

/** RFC 9110 `product = token ["/" product-version]`, `product-version = token`. */
const PRODUCT = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:\/[!#$%&'*+.^_`|~0-9A-Za-z-]+)?$/;

/**
 * The first product of a `User-Agent` header (`claude-code/1.2.3` of
 * `claude-code/1.2.3 (darwin) node/22`), normalised like any client string; `undefined` when the
 * header is absent or does not start with a well-formed product. What names a 2025-era client that
 * sent no session id.
 */
export function userAgentProduct(userAgent: string | undefined): string | undefined {
  if (userAgent === undefined) return undefined;
  const first = userAgent.trim().split(/[ \t]/, 1)[0] ?? '';
  if (!PRODUCT.test(first)) return undefined;
  return normalizeClientString(first) || undefined;
}
