import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '@app/access-vocabulary';
import { RequestContext } from '@app/identity';
import type { AccessRequirement } from '@app/access-vocabulary';
import { AccessPolicy } from './access.policy.js';
import { ACCESS_PER_OPERATION, ACCESS_REQUIREMENT } from './requires-access.decorator.js';

/** Runs the four checks on every authenticated REST route (membership checks even without a requirement). */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly policy: AccessPolicy,
    private readonly context: RequestContext,
  ) {}

  canActivate(ctx: ExecutionContext): boolean {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(ACCESS_PER_OPERATION, targets)) return true;
    const requirement =
      this.reflector.getAllAndOverride<AccessRequirement | undefined>(
        ACCESS_REQUIREMENT,
        targets,
      ) ?? {};
    this.policy.assert(this.context.principal, requirement);
    return true;
  }
}
