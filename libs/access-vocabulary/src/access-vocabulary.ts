/**
 * Token scopes: a resource and an access level. Write implies read. `org:admin` (members, tokens,
 * the mail outbox) is a reach of its own: no other scope implies it and it implies no other.
 */
export const SCOPES = [
  'portal_users:read',
  'portal_users:write',
  'accounts:read',
  'accounts:write',
  'audit:read',
  'org:admin',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Whether a string is one of our scopes (the one test; OAuth requests and the CLI use it). */
export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
export type ScopeResource = 'portal_users' | 'accounts' | 'audit' | 'org';
export type ScopeAccess = 'read' | 'write' | 'admin';

export const READ_SCOPES: readonly Scope[] = SCOPES.filter((s) => s.endsWith(':read'));
export const WRITE_SCOPES: readonly Scope[] = SCOPES.filter((s) => s.endsWith(':write'));
/**
 * What an OAuth token may hold: read scopes only. Never a write scope, never `org:admin`. The one
 * declaration of the OAuth read-only rule: issuance, the authorization server (what it offers,
 * what it refuses), the `insufficient_scope` advice and the consent page derive from it, and the
 * database CHECK `ck_api_tokens_oauth_read_only` is tested against it.
 */
export const OAUTH_GRANTABLE_SCOPES: readonly Scope[] = READ_SCOPES;

/** Our scopes among `asked` that an OAuth client can never be granted. */
export function beyondOAuthGrant(asked: readonly string[]): Scope[] {
  return asked.filter(isScope).filter((s) => !OAUTH_GRANTABLE_SCOPES.includes(s));
}

/** Permissions belong to a person's membership in an organisation. */
export const PERMISSIONS = [
  'portal_users.read',
  'portal_users.manage',
  'portal_users.invite',
  'portal_users.delete',
  'accounts.read',
  'accounts.manage',
  'accounts.delete',
  'audit.read',
  'admin',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = ['owner', 'admin', 'member', 'viewer', 'custom'] as const;
export type Role = (typeof ROLES)[number];

/** Roles are presets of permissions; `custom` is whatever an admin set by hand. */
export const ROLE_PERMISSIONS: Record<Exclude<Role, 'custom'>, readonly Permission[]> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS,
  member: [
    'portal_users.read',
    'portal_users.manage',
    'portal_users.invite',
    'accounts.read',
    'accounts.manage',
  ],
  viewer: ['portal_users.read', 'accounts.read', 'audit.read'],
};

export type TokenKind = 'personal' | 'oauth';
export type MembershipStatus = 'active' | 'inactive';

/** The scope a resource and access level name (not necessarily a grantable one, e.g. `audit:write`). */
export function scopeOf(
  resource: ScopeResource,
  access: ScopeAccess,
): `${ScopeResource}:${ScopeAccess}` {
  return `${resource}:${access}`;
}

/** Whether the scopes reach a resource with an access level: the scope itself, or write for read. */
export function scopesReach(
  scopes: readonly string[],
  resource: ScopeResource,
  access: ScopeAccess,
): boolean {
  if (scopes.includes(`${resource}:${access}`)) return true;
  return access === 'read' && scopes.includes(`${resource}:write`);
}

const SCOPE_PARTS: Record<Scope, readonly [ScopeResource, ScopeAccess]> = {
  'portal_users:read': ['portal_users', 'read'],
  'portal_users:write': ['portal_users', 'write'],
  'accounts:read': ['accounts', 'read'],
  'accounts:write': ['accounts', 'write'],
  'audit:read': ['audit', 'read'],
  'org:admin': ['org', 'admin'],
};

/** The resource and access level a scope names (`org:admin` → `['org', 'admin']`). */
export function scopeParts(scope: Scope): readonly [ScopeResource, ScopeAccess] {
  return SCOPE_PARTS[scope];
}
