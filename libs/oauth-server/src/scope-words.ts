import { beyondOAuthGrant, type Scope } from '@app/access-vocabulary';

/** The OpenID Connect scopes the provider recognises besides ours (offline_access: a refresh token). */
export const OIDC_SCOPES = ['openid', 'offline_access'] as const;

/** What each scope lets a client do, in the words the consent page uses. */
export const SCOPE_WORDS: Readonly<Record<Scope, string>> = {
  'portal_users:read': 'See the portal users of the organisation (names, e-mail addresses, status)',
  'portal_users:write': 'Create, change, deactivate and delete portal users',
  'accounts:read': 'See the customer accounts of the organisation',
  'accounts:write': 'Create, change and delete customer accounts',
  'audit:read': 'Read the organisation’s audit trail',
  'org:admin': 'Administer the organisation: members, tokens and the mail outbox',
};

/** Why a write scope is refused, in the words of the `insufficient_scope` outcome. */
export function writeScopeRefusal(asked: readonly string[]): string {
  return (
    `OAuth access is read-only: ${asked.join(', ')} cannot be granted to an OAuth client. ` +
    'OAuth tokens are read-only today; a personal token can carry write.'
  );
}

/**
 * The scopes asked for that an OAuth client can never be granted (OAUTH_GRANTABLE_SCOPES: a
 * client a person authorized acts with less certainty than a token the person made for a script,
 * so writes need a personal token).
 */
export function writeScopesIn(scope: string | undefined): string[] {
  return beyondOAuthGrant((scope ?? '').split(' '));
}
