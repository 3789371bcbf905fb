import type { AccessRequirement } from './access-requirement.js';
import type { Permission, ScopeAccess, ScopeResource } from './access-vocabulary.js';

/**
 * Who may call an endpoint, declared once with the endpoint (its contract) and applied by
 * `@Endpoint`:
 * - `scoped`: a token carrying the scope, of a person holding the permission (after the two
 *   membership checks). Every route that reads or changes organisation data.
 * - `authenticated`: any valid token of an active member; the reason says why no scope is needed.
 * - `public`: no token at all; the reason says what protects it instead.
 */
export type EndpointAccess =
  | {
      kind: 'scoped';
      scope: { resource: ScopeResource; access: ScopeAccess };
      permission: Permission;
    }
  | { kind: 'authenticated'; reason: string }
  | { kind: 'public'; reason: string };

export const scoped = (
  resource: ScopeResource,
  access: ScopeAccess,
  permission: Permission,
): EndpointAccess => ({ kind: 'scoped', scope: { resource, access }, permission });

/** The requirement the access checks evaluate for an endpoint (`{}`: membership checks only). */
export function requirementOf(access: EndpointAccess): AccessRequirement {
  return access.kind === 'scoped' ? { scope: access.scope, permission: access.permission } : {};
}
