/** Token scopes: a resource and an access level. Write implies read. */
export const SCOPES = [
  'portal_users:read',
  'portal_users:write',
  'accounts:read',
  'accounts:write',
  'audit:read',
] as const;
export type Scope = (typeof SCOPES)[number];
export type ScopeResource = 'portal_users' | 'accounts' | 'audit';
export type ScopeAccess = 'read' | 'write';

export const READ_SCOPES: readonly Scope[] = SCOPES.filter((s) => s.endsWith(':read'));
export const WRITE_SCOPES: readonly Scope[] = SCOPES.filter((s) => s.endsWith(':write'));

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

export function scopesReach(
  scopes: readonly string[],
  resource: ScopeResource,
  access: ScopeAccess,
): boolean {
  if (scopes.includes(`${resource}:write`)) return true;
  return access === 'read' && scopes.includes(`${resource}:read`);
}
