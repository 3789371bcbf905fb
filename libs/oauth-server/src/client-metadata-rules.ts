import { textRefusal } from '@app/common';
import { isLoopbackHostname } from '@app/config';

/**
 * What this server accepts in a client's metadata, from Dynamic Client Registration or a Client
 * ID Metadata Document, beyond what oidc-provider checks itself. Every answer is a sentence that
 * starts with the field it is about (oidc-provider turns one about `redirect_uris` into
 * `invalid_redirect_uri`, any other into `invalid_client_metadata`).
 */

/** The longest string any metadata field may hold (a URI, a key's parameter, …). */
export const MAX_METADATA_STRING = 2048;
/** The longest client name: it is shown on the consent page and in token lists. */
export const MAX_CLIENT_NAME = 200;
/** The most entries a metadata array may have (redirect URIs, contacts, grant types, keys, …). */
export const MAX_METADATA_ARRAY = 10;
/** How deep metadata may nest (`jwks.keys[0].x5c[0]` is 4). */
const MAX_METADATA_DEPTH = 5;

/** Schemes no redirect may use, whatever the application (RFC 8252 §8.1, browsers' own rules). */
const FORBIDDEN_SCHEMES: ReadonlySet<string> = new Set([
  'javascript:',
  'data:',
  'vbscript:',
  'file:',
  'blob:',
  'about:',
  'filesystem:',
  'ws:',
  'wss:',
  'ftp:',
]);

const CAPS: Readonly<Record<string, number>> = { client_name: MAX_CLIENT_NAME, contacts: 320 };

/**
 * Whether oidc-provider built this client from a Client ID Metadata Document fetched from its
 * https `client_id` URL: its name, host and redirect URIs are the document owner's. Any other
 * client registered itself (DCR) and said what it liked about itself.
 */
export function isVerifiedClient(client: object): boolean {
  return (
    'clientIdMetadataDocument' in client &&
    'clientId' in client &&
    typeof client.clientId === 'string' &&
    URL.parse(client.clientId)?.protocol === 'https:'
  );
}

export function isLoopbackHttp(uri: unknown): boolean {
  if (typeof uri !== 'string') return false;
  const parsed = URL.parse(uri);
  return parsed !== null && parsed.protocol === 'http:' && isLoopbackHostname(parsed.hostname);
}

/**
 * Every string, key and array of the metadata, at any depth: no U+0000 or lone surrogate (the
 * REST API's text rule; Postgres `jsonb` cannot store them), at most {@link MAX_METADATA_STRING}
 * characters ({@link MAX_CLIENT_NAME} for the name), at most {@link MAX_METADATA_ARRAY} entries.
 */
function textRuleRefusal(field: string, value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') {
    const why = textRefusal(value);
    if (why !== undefined) return `${field} must not contain ${why}`;
    // `contacts[2]` → `contacts`; a localised `client_name#fr` → `client_name`.
    const cap = CAPS[field.replace(/\[\d+\]$/, '').split('#')[0] ?? ''] ?? MAX_METADATA_STRING;
    return value.length > cap ? `${field} must be at most ${cap} characters long` : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= MAX_METADATA_DEPTH) return `${field} is nested too deeply`;
  if (Array.isArray(value)) {
    if (value.length > MAX_METADATA_ARRAY)
      return `${field} must have at most ${MAX_METADATA_ARRAY} entries`;
    for (const [i, item] of value.entries()) {
      const refusal = textRuleRefusal(`${field}[${i}]`, item, depth + 1);
      if (refusal !== undefined) return refusal;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const why = textRefusal(key);
    if (why !== undefined) return `${field} must not have a member whose name contains ${why}`;
    const refusal = textRuleRefusal(`${field}.${key}`, item, depth + 1);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

/**
 * One redirect URI of a web or native application (OAuth 2.1 §2.3.1, RFC 8252 §7): an absolute
 * URI without userinfo or fragment; https, or http to this computer (a loopback host); a native
 * application may also use a private-use scheme named after a domain it owns (`com.example.app:`).
 */
function redirectUriRefusal(
  field: string,
  uri: unknown,
  applicationType: 'web' | 'native',
): string | undefined {
  if (typeof uri !== 'string') return undefined; // oidc-provider refuses what is not a string
  const parsed = URL.parse(uri);
  if (parsed === null) return `${field} must be absolute URIs`;
  if (parsed.username !== '' || parsed.password !== '')
    return `${field} must not contain userinfo (a user name or password before the host)`;
  if (parsed.hash !== '' || uri.includes('#')) return `${field} must not contain fragments`;
  if (FORBIDDEN_SCHEMES.has(parsed.protocol))
    return `${field} must not use the ${parsed.protocol.slice(0, -1)} scheme`;
  if (parsed.protocol === 'https:') return undefined;
  if (parsed.protocol === 'http:')
    return isLoopbackHostname(parsed.hostname)
      ? undefined
      : `${field} may use http only for this computer (127.0.0.1, [::1] or localhost); use https`;
  if (applicationType === 'native' && parsed.protocol.slice(0, -1).includes('.')) return undefined;
  return applicationType === 'native'
    ? `${field} of a native application must use https, http to a loopback host, or a private-use scheme named after a domain (com.example.app:)`
    : `${field} of a web application must use https (or http to a loopback host)`;
}

/**
 * Why this server refuses the metadata, or `undefined`. `verified`: the metadata comes from a
 * Client ID Metadata Document at the client's own https URL, so its redirects are the
 * document owner's; only such a client may have `post_logout_redirect_uris` (sending a person to a
 * self-registered client's site after signing out is an open redirect anyone can register).
 */
export function clientMetadataRefusal(
  metadata: Readonly<Record<string, unknown>>,
  verified: boolean,
): string | undefined {
  for (const [field, value] of Object.entries(metadata)) {
    const refusal = textRuleRefusal(field, value);
    if (refusal !== undefined) return refusal;
  }
  const type = metadata.application_type;
  if (type !== undefined && type !== 'web' && type !== 'native')
    return 'application_type must be "web" or "native"';
  const applicationType = type === 'native' ? 'native' : 'web';
  const logout = metadata.post_logout_redirect_uris;
  if (!verified && Array.isArray(logout) && logout.length > 0)
    return 'post_logout_redirect_uris are accepted only from a client identified by a Client ID Metadata Document (an https client_id URL)';
  for (const field of ['redirect_uris', 'post_logout_redirect_uris'] as const) {
    const uris = metadata[field];
    if (!Array.isArray(uris)) continue;
    for (const uri of uris) {
      const refusal = redirectUriRefusal(field, uri, applicationType);
      if (refusal !== undefined) return refusal;
    }
  }
  return undefined;
}
