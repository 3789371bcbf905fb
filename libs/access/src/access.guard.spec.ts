import { AsyncLocalStorage } from 'node:async_hooks';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { ClsService } from 'nestjs-cls';
import { describe, expect, it } from 'vitest';
import { ACCESS_REQUIREMENT, type AccessRequirement } from '@app/access-vocabulary';
import { testPrincipal } from '@app/testing';
import {
  INTERNAL_DISPATCH_HEADER,
  InternalDispatchRegistry,
  RequestContext,
  type Principal,
} from '@app/identity';
import {
  ActiveMembershipCheck,
  KeyOwnerMembershipCheck,
  PermissionCheck,
  TokenScopeCheck,
} from './access-checks.js';
import { AccessGuard } from './access.guard.js';
import { AccessPolicy } from './access.policy.js';

const principal: Principal = testPrincipal({
  scopes: ['accounts:read'],
  membership: { id: 'm1', status: 'active', role: 'viewer', permissions: ['accounts.read'] },
});

const listAccounts: AccessRequirement = {
  scope: { resource: 'accounts', access: 'read' },
  permission: 'accounts.read',
};
const deleteAccount: AccessRequirement = {
  scope: { resource: 'accounts', access: 'write' },
  permission: 'accounts.delete',
};

function listAccountsRoute(): void {}
function deleteAccountRoute(): void {}
Reflect.defineMetadata(ACCESS_REQUIREMENT, listAccounts, listAccountsRoute);
Reflect.defineMetadata(ACCESS_REQUIREMENT, deleteAccount, deleteAccountRoute);
class Controller {}

/** The real policy, counting its evaluations. */
class CountingPolicy extends AccessPolicy {
  evaluations = 0;
  override assert(p: Principal, r: AccessRequirement): void {
    this.evaluations++;
    super.assert(p, r);
  }
}

class FixedCaller extends RequestContext {
  override get principal(): Principal {
    return principal;
  }
}

function setup(route: AccessRequirement) {
  const policy = new CountingPolicy(
    new KeyOwnerMembershipCheck(),
    new ActiveMembershipCheck(),
    new TokenScopeCheck(),
    new PermissionCheck(),
  );
  const dispatches = new InternalDispatchRegistry();
  const guard = new AccessGuard(
    new Reflector(),
    policy,
    new FixedCaller(new ClsService(new AsyncLocalStorage())),
    dispatches,
  );
  const handler = route === listAccounts ? listAccountsRoute : deleteAccountRoute;
  const run = (headers: Record<string, string>): boolean => {
    const raw = { headers };
    const ctx = new ExecutionContextHost([{ raw, headers }, {}], Controller, handler);
    return guard.canActivate(ctx);
  };
  return { policy, dispatches, run };
}

const caller = {
  principal,
  channel: 'mcp' as const,
  clientName: null,
  confirmationId: null,
  requestId: 'r1',
};

describe('AccessGuard and the in-process dispatch', () => {
  it('evaluates an outside request, bogus dispatch header or not', () => {
    const { policy, run } = setup(listAccounts);
    expect(run({})).toBe(true);
    expect(run({ [INTERNAL_DISPATCH_HEADER]: 'made-up' })).toBe(true);
    expect(policy.evaluations).toBe(2);
  });

  it('does not evaluate again the requirement the executor verified, when it is the route’s', () => {
    const { policy, dispatches, run } = setup(listAccounts);
    const handle = dispatches.issue({
      caller,
      verified: { permission: 'accounts.read', scope: { access: 'read', resource: 'accounts' } },
    });
    expect(run({ [INTERNAL_DISPATCH_HEADER]: handle })).toBe(true);
    expect(policy.evaluations).toBe(0);
  });

  it('evaluates an in-process dispatch that verified another requirement, or none', () => {
    const { policy, dispatches, run } = setup(deleteAccount);
    const verifiedOther = dispatches.issue({ caller, verified: listAccounts });
    expect(() => run({ [INTERNAL_DISPATCH_HEADER]: verifiedOther })).toThrow(
      expect.objectContaining({ code: 'insufficient_scope' }),
    );
    const unverified = dispatches.issue({ caller });
    expect(() => run({ [INTERNAL_DISPATCH_HEADER]: unverified })).toThrow(
      expect.objectContaining({ code: 'insufficient_scope' }),
    );
    expect(policy.evaluations).toBe(2);
  });
});
