/** What a client's `X-Request-Id` may be to be kept: short, and safe in a log line or a URL. */
const CORRELATION_ID = /^[A-Za-z0-9._:-]{8,64}$/;

/**
 * The client's own id for a request (its `X-Request-Id` header), kept only as a correlation field
 * next to the id the server issues for every request: anyone can send any id, so nothing is ever
 * linked by it (two people sending the same one would see each other's audit events). `null` when
 * absent, repeated or not of the accepted form.
 */
export function correlationIdOf(header: string | string[] | undefined): string | null {
  return typeof header === 'string' && CORRELATION_ID.test(header) ? header : null;
}
