import { normalizeClientString } from '@app/common';

/**
 * A client's name as this server shows, stores and logs it (consent page, the token's
 * `client_name` in `/v1/tokens`, `/v1/me/tokens`, the audit trail and the per-call log line): the
 * `client_name` of its registration or its Client ID Metadata Document, whatever the client sent,
 * through the one normaliser of client strings. `undefined` when it has none (or nothing is left).
 */
export function clientDisplayName(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  return normalizeClientString(name) || undefined;
}
