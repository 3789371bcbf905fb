import { Injectable } from '@nestjs/common';
import { DomainError } from '@app/errors';
import { OAUTH_GRANTABLE_SCOPES, scopeOf, scopesReach } from '@app/access-vocabulary';
import { type Principal } from '@app/identity';
import type { AccessRequirement } from '@app/access-vocabulary';

/** One authorization check. Returns the refusal, or `null` to let the next check run. */
export interface AccessCheck {
  check(principal: Principal, requirement: AccessRequirement): DomainError | null;
}

/** 1. The person who authorized the token is still a member of its organisation. */
@Injectable()
export class KeyOwnerMembershipCheck implements AccessCheck {
  check(p: Principal): DomainError | null {
    if (p.membership !== null) return null;
    return new DomainError(
      'key_owner_not_member',
      `The person who authorized this client (${p.userEmail}) is not a member of organisation "${p.organizationSlug}". ` +
        'Authorize the client again with an account that is a member of the organisation.',
      { organization: p.organizationSlug, user: p.userEmail },
    );
  }
}

/** 2. That membership is active. */
@Injectable()
export class ActiveMembershipCheck implements AccessCheck {
  check(p: Principal): DomainError | null {
    if (p.membership === null || p.membership.status === 'active') return null;
    return new DomainError(
      'membership_inactive',
      `The membership of ${p.userEmail}, who authorized this client, in organisation "${p.organizationSlug}" is inactive. ` +
        'Ask whoever manages members of the organisation to reactivate it; no permission can fix an inactive membership.',
      { organization: p.organizationSlug, user: p.userEmail },
    );
  }
}

/** 3. The token's scopes reach the resource with the access needed. */
@Injectable()
export class TokenScopeCheck implements AccessCheck {
  check(p: Principal, r: AccessRequirement): DomainError | null {
    if (r.scope === undefined || scopesReach(p.scopes, r.scope.resource, r.scope.access))
      return null;
    const required = scopeOf(r.scope.resource, r.scope.access);
    const oauthWrite =
      p.tokenKind === 'oauth' && !(OAUTH_GRANTABLE_SCOPES as readonly string[]).includes(required);
    const advice = oauthWrite
      ? `OAuth access is read-only today; use a personal token (pat_…) that carries ${required}.`
      : 'Use a token that carries it.';
    return new DomainError(
      'insufficient_scope',
      `This token's scopes do not reach this operation: it needs ${required}. ${advice}`,
      {
        required_scope: required,
        token_kind: p.tokenKind,
        token_scopes: p.scopes,
        ...(oauthWrite ? { oauth_read_only: true, grantable_scopes: OAUTH_GRANTABLE_SCOPES } : {}),
      },
    );
  }
}

/** 4. The person holds the permission (granted by an org admin). */
@Injectable()
export class PermissionCheck implements AccessCheck {
  check(p: Principal, r: AccessRequirement): DomainError | null {
    if (r.permission === undefined || p.membership === null) return null;
    const held = p.membership.permissions;
    if (held.includes(r.permission) || held.includes('admin')) return null;
    return new DomainError(
      'insufficient_permission',
      `${p.userEmail} does not hold the permission ${r.permission} in organisation "${p.organizationSlug}". ` +
        'An organisation admin can grant it.',
      { permission: r.permission, organization: p.organizationSlug },
    );
  }
}
