import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '@app/access-vocabulary';
import { RequestContext } from '@app/identity';
import type { AccessRequirement } from '@app/access-vocabulary';
import { AccessPolicy } from './access.policy.js';
import { ACCESS_PER_OPERATION, ACCESS_REQUIREMENT } from './requires-access.decorator.js';

/**
 * Runs the four checks on every authenticated REST route (membership checks even without a
 * requirement). An MCP tool call reaches its endpoint without an HTTP request; the in-process
 * dispatch applies the same evaluation (`routeRequirementOf`, ADR 0008).
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly policy: AccessPolicy,
    private readonly context: RequestContext,
  ) {}

  canActivate(ctx: ExecutionContext): boolean {
    const requirement = routeRequirementOf(this.reflector, ctx.getHandler(), ctx.getClass());
    if (requirement === null) return true;
    this.policy.assert(this.context.principal, requirement);
    return true;
  }
}

/**
 * What the access guard evaluates for a route: `null` for a public route or one that checks access
 * per operation itself; otherwise its requirement (`{}`: the membership checks only).
 */
export function routeRequirementOf(
  reflector: Reflector,
  handler: ReturnType<ExecutionContext['getHandler']>,
  controller: ReturnType<ExecutionContext['getHandler']>,
): AccessRequirement | null {
  const targets = [handler, controller];
  if (reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return null;
  if (reflector.getAllAndOverride<boolean>(ACCESS_PER_OPERATION, targets)) return null;
  return (
    reflector.getAllAndOverride<AccessRequirement | undefined>(ACCESS_REQUIREMENT, targets) ?? {}
  );
}

/** Whether two requirements ask for the same scope and permission. */
export function sameRequirement(a: AccessRequirement, b: AccessRequirement): boolean {
  return (
    a.permission === b.permission &&
    a.scope?.resource === b.scope?.resource &&
    a.scope?.access === b.scope?.access
  );
}
