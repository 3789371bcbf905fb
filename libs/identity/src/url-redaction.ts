/**
 * Query parameters whose values may be logged: ids, enumerations, numbers, instants and the OAuth
 * request's protocol words. Every other parameter's value is redacted, whatever the route: a
 * secret (tokens, codes, `state`, PKCE verifiers) or personal data (an e-mail address in `to=`, a
 * name or address searched for with `q=`, `login_hint`) is never worth a log line, and a parameter
 * added tomorrow is redacted until someone decides it is neither.
 */
const LOGGED_QUERY_PARAMETERS = new Set([
  // The REST API's paging and filters (ids, enums, instants)
  'limit',
  'cursor',
  'since',
  'until',
  'status',
  'action',
  'resource_type',
  'resource_id',
  'channel',
  'tool',
  'user',
  'user_id',
  'actor',
  'account_id',
  // OAuth authorization requests (RFC 6749, 7636, 8707, 9207)
  'response_type',
  'response_mode',
  'client_id',
  'redirect_uri',
  'scope',
  'resource',
  'code_challenge_method',
  'prompt',
  'iss',
  'error',
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
 * A request URL (path and query) as it may be logged: secret path segments and the value of every
 * query parameter not in {@link LOGGED_QUERY_PARAMETERS} replaced by `[redacted]`. Names and
 * segments are compared decoded and case-insensitively; a parameter whose name cannot be decoded
 * is redacted whole.
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
      return eq !== -1 && !LOGGED_QUERY_PARAMETERS.has(name.trim().toLowerCase())
        ? `${rawName}=${REDACTED}`
        : part;
    });
  return `${path}?${parts.join('&')}`;
}
