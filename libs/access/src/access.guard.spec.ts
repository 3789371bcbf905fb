import { AsyncLocalStorage } from 'node:async_hooks';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { ClsService } from 'nestjs-cls';
import { describe, expect, it } from 'vitest';
import { ACCESS_REQUIREMENT, type AccessRequirement } from '@app/access-vocabulary';
import { testPrincipal } from '@app/testing';
import { RequestContext, type Principal } from '@app/identity';
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
  const guard = new AccessGuard(
    new Reflector(),
    policy,
    new FixedCaller(new ClsService(new AsyncLocalStorage())),
  );
  const handler = route === listAccounts ? listAccountsRoute : deleteAccountRoute;
  const run = (headers: Record<string, string>): boolean => {
    const raw = { headers };
    const ctx = new ExecutionContextHost([{ raw, headers }, {}], Controller, handler);
    return guard.canActivate(ctx);
  };
  return { policy, run };
}

describe('AccessGuard', () => {
  it('evaluates every request against its route', () => {
    const { policy, run } = setup(listAccounts);
    expect(run({})).toBe(true);
    expect(run({})).toBe(true);
    expect(policy.evaluations).toBe(2);
  });

  it('refuses a route whose requirement the caller does not meet, with its code', () => {
    const { policy, run } = setup(deleteAccount);
    expect(() => run({})).toThrow(expect.objectContaining({ code: 'insufficient_scope' }));
    expect(policy.evaluations).toBe(1);
  });
});
