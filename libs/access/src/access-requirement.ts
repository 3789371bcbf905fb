import type { Permission, ScopeAccess, ScopeResource } from '@app/identity';

/** What an operation needs: a scope (resource + access) and a permission; either may be absent. */
export interface AccessRequirement {
  scope?: { resource: ScopeResource; access: ScopeAccess };
  permission?: Permission;
}
