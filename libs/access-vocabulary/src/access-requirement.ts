import { SetMetadata } from '@nestjs/common';
import type { Permission, ScopeAccess, ScopeResource } from './access-vocabulary.js';

/** What an operation needs: a scope (resource + access) and a permission; either may be absent. */
export interface AccessRequirement {
  scope?: { resource: ScopeResource; access: ScopeAccess };
  permission?: Permission;
}

export const ACCESS_REQUIREMENT = 'access:requirement';

/** Declares a route's scope and permission; the access guard enforces them after authentication. */
export const RequiresAccess = (requirement: AccessRequirement): MethodDecorator & ClassDecorator =>
  SetMetadata(ACCESS_REQUIREMENT, requirement);
