import { describe, expect, it } from 'vitest';
import type { Principal } from '@app/identity';
import { testPrincipal } from '@app/testing';
import {
  ActiveMembershipCheck,
  KeyOwnerMembershipCheck,
  PermissionCheck,
  TokenScopeCheck,
} from './access-checks.js';
import { AccessPolicy } from './access.policy.js';
import type { AccessRequirement } from '@app/access-vocabulary';

function principal(over: Partial<Principal> = {}): Principal {
  return testPrincipal({
    scopes: ['portal_users:write', 'accounts:read'],
    membership: {
      id: 'm1',
      status: 'active',
      role: 'member',
      permissions: ['portal_users.read', 'portal_users.manage'],
    },
    ...over,
  });
}

const deletePortalUser: AccessRequirement = {
  scope: { resource: 'portal_users', access: 'write' },
  permission: 'portal_users.delete',
};

describe('the four checks, each on its own', () => {
  it('key owner must be a member', () => {
    const c = new KeyOwnerMembershipCheck();
    expect(c.check(principal())).toBeNull();
    const e = c.check(principal({ membership: null }));
    expect(e?.code).toBe('key_owner_not_member');
    expect(e?.message).toMatch(/Authorize the client again with an account that is a member/);
  });

  it('membership must be active', () => {
    const c = new ActiveMembershipCheck();
    expect(c.check(principal())).toBeNull();
    const p = principal();
    const e = c.check({ ...p, membership: { ...p.membership!, status: 'inactive' } });
    expect(e?.code).toBe('membership_inactive');
    expect(e?.message).toMatch(/reactivate/);
    expect(e?.message).toMatch(/no permission can fix/);
  });

  it('scope: write implies read; missing write names the scope and the token kind', () => {
    const c = new TokenScopeCheck();
    expect(
      c.check(principal(), { scope: { resource: 'portal_users', access: 'read' } }),
    ).toBeNull();
    const e = c.check(principal(), { scope: { resource: 'accounts', access: 'write' } });
    expect(e?.code).toBe('insufficient_scope');
    expect(e?.details).toMatchObject({ required_scope: 'accounts:write', token_kind: 'personal' });
    expect(c.check(principal(), { scope: { resource: 'audit', access: 'read' } })?.code).toBe(
      'insufficient_scope',
    );
  });

  it('scope: an OAuth token asking for write is told OAuth is read-only and a personal token can write', () => {
    const e = new TokenScopeCheck().check(
      principal({ tokenKind: 'oauth', scopes: ['portal_users:read'] }),
      { scope: { resource: 'portal_users', access: 'write' } },
    );
    expect(e?.message).toMatch(/OAuth access is read-only today; use a personal token/);
    expect(e?.details).toMatchObject({ token_kind: 'oauth', oauth_read_only: true });
  });

  it('permission: names the permission to grant and who grants it; admin holds every permission', () => {
    const c = new PermissionCheck();
    const e = c.check(principal(), deletePortalUser);
    expect(e?.code).toBe('insufficient_permission');
    expect(e?.details).toMatchObject({ permission: 'portal_users.delete' });
    expect(e?.message).toMatch(/organisation admin can grant it/);
    const p = principal();
    expect(
      c.check({ ...p, membership: { ...p.membership!, permissions: ['admin'] } }, deletePortalUser),
    ).toBeNull();
  });
});

describe('AccessPolicy order', () => {
  const policy = new AccessPolicy(
    new KeyOwnerMembershipCheck(),
    new ActiveMembershipCheck(),
    new TokenScopeCheck(),
    new PermissionCheck(),
  );

  it('returns the first failure: member → active → scope → permission', () => {
    const p = principal({ scopes: [] });
    expect(policy.evaluate({ ...p, membership: null }, deletePortalUser)?.code).toBe(
      'key_owner_not_member',
    );
    expect(
      policy.evaluate(
        { ...p, membership: { ...principal().membership!, status: 'inactive' } },
        deletePortalUser,
      )?.code,
    ).toBe('membership_inactive');
    expect(policy.evaluate(p, deletePortalUser)?.code).toBe('insufficient_scope');
    expect(policy.evaluate(principal(), deletePortalUser)?.code).toBe('insufficient_permission');
    expect(
      policy.evaluate(principal(), {
        scope: { resource: 'portal_users', access: 'write' },
        permission: 'portal_users.manage',
      }),
    ).toBeNull();
  });

  it('membership checks apply even when an operation needs no scope or permission', () => {
    expect(policy.evaluate(principal({ membership: null }), {})?.code).toBe('key_owner_not_member');
    expect(policy.evaluate(principal(), {})).toBeNull();
  });
});
