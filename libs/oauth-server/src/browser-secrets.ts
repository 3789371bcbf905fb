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

/**
 * A path on this server that is safe to send the browser back to after signing in: absolute
 * path, no scheme or authority (`//evil`, `/\evil`), no control characters. Anything else → `/`.
 */
export function safeReturnPath(candidate: unknown, fallback = '/'): string {
  if (typeof candidate !== 'string' || candidate.length === 0 || candidate.length > 2048)
    return fallback;
  if (!candidate.startsWith('/') || candidate.startsWith('//') || candidate.startsWith('/\\'))
    return fallback;
  // oxlint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(candidate)) return fallback;
  try {
    const parsed = new URL(candidate, 'http://same-origin.invalid');
    if (parsed.origin !== 'http://same-origin.invalid') return fallback;
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return fallback;
  }
}
