import { normalizeClientString } from '@app/common';

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
