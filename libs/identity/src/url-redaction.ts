/**
 * Query parameters that carry a secret: bearer or refresh tokens, one-time sign-in link tokens,
 * OAuth authorization codes, state and PKCE verifiers.
 */
const SECRET_QUERY_PARAMETERS = new Set([
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'code',
  'state',
  'code_verifier',
  'client_secret',
  'password',
]);

/**
 * Paths with a secret segment, as the decoded segments before it: the invitation token a portal
 * user accepts with (`/v1/portal-invitations/{token}/accept`).
 */
const SECRET_PATH_PREFIXES: readonly (readonly string[])[] = [['', 'v1', 'portal-invitations']];

export const REDACTED = '[redacted]';

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * A request URL (path and query) as it may be logged: the values of secret query parameters and
 * secret path segments replaced by `[redacted]`. Names and segments are compared decoded and
 * case-insensitively; a parameter whose name cannot be decoded is redacted whole.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const segments = (q === -1 ? url : url.slice(0, q)).split('/');
  const folded = segments.map((s) => decoded(s)?.toLowerCase());
  for (const prefix of SECRET_PATH_PREFIXES) {
    if (segments.length > prefix.length && prefix.every((p, i) => folded[i] === p))
      segments[prefix.length] = REDACTED;
  }
  const path = segments.join('/');
  if (q === -1) return path;
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const rawName = eq === -1 ? part : part.slice(0, eq);
      const name = decoded(rawName);
      if (name === undefined) return REDACTED;
      return eq !== -1 && SECRET_QUERY_PARAMETERS.has(name.trim().toLowerCase())
        ? `${rawName}=${REDACTED}`
        : part;
    });
  return `${path}?${parts.join('&')}`;
}
