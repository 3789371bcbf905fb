import { Injectable } from '@nestjs/common';
import type { DomainError } from '@app/errors';
import type { Principal } from '@app/identity';
import {
  ActiveMembershipCheck,
  KeyOwnerMembershipCheck,
  PermissionCheck,
  TokenScopeCheck,
  type AccessCheck,
} from './access-checks.js';
import type { AccessRequirement } from '@app/access-vocabulary';

/**
 * The four authorization outcomes, in the contract's order: key owner is a member → membership is
 * active → token scope reaches the operation → person holds the permission. The first refusal wins.
 * REST routes and MCP calls both go through here, so the codes and wording are the same.
 */
@Injectable()
export class AccessPolicy {
  private readonly checks: readonly AccessCheck[];

  constructor(
    keyOwner: KeyOwnerMembershipCheck,
    active: ActiveMembershipCheck,
    scope: TokenScopeCheck,
    permission: PermissionCheck,
  ) {
    this.checks = [keyOwner, active, scope, permission];
  }

  evaluate(principal: Principal, requirement: AccessRequirement): DomainError | null {
    for (const c of this.checks) {
      const refusal = c.check(principal, requirement);
      if (refusal !== null) return refusal;
    }
    return null;
  }

  assert(principal: Principal, requirement: AccessRequirement): void {
    const refusal = this.evaluate(principal, requirement);
    if (refusal !== null) throw refusal;
  }
}
