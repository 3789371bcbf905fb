import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random secret for a cookie or a link: 256 bits, URL-safe. Stored only as its hash. */
export function newBrowserSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashBrowserSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** HMAC-SHA256 of `value` under `key`, base64url. */
export function hmac(key: string, value: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('base64url');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The origin return paths are resolved against: any origin works, only "is it this one" matters. */
const THIS_SITE = 'http://this-site.invalid';
const MAX_RETURN_PATH = 2048;

/**
 * The one decision on where a browser may be sent back to on this server (after signing in,
 * signing out, consenting): the candidate is resolved as a URL against this site, and kept only
 * when it lands on this site, as a path that the browser resolves to that same place again. So
 * `/..//evil.example/x` (which normalises to the network path `//evil.example/x`), `/\evil`,
 * `https://evil` and anything unparseable all become `fallback`. The answer is a path (no
 * scheme, no host), normalised, without a fragment.
 */
export function safeReturnPath(candidate: unknown, fallback = '/'): string {
  if (typeof candidate !== 'string' || candidate.length > MAX_RETURN_PATH) return fallback;
  const target = URL.parse(candidate, THIS_SITE);
  if (target === null || target.origin !== THIS_SITE) return fallback;
  const path = `${target.pathname}${target.search}`;
  const again = URL.parse(path, THIS_SITE);
  return again !== null && again.origin === THIS_SITE && `${again.pathname}${again.search}` === path
    ? path
    : fallback;
}
