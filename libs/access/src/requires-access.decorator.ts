import { SetMetadata } from '@nestjs/common';
import type { AccessRequirement } from './access-requirement.js';

export const ACCESS_REQUIREMENT = 'access:requirement';

/** Declares a route's scope and permission; {@link AccessGuard} enforces them after authentication. */
export const RequiresAccess = (requirement: AccessRequirement): MethodDecorator & ClassDecorator =>
  SetMetadata(ACCESS_REQUIREMENT, requirement);

export const ACCESS_PER_OPERATION = 'access:per-operation';

/**
 * The route runs the four checks itself, once per operation inside the request (the MCP endpoint:
 * each tools/call, resources/read, prompts/get, answered in-band). AccessGuard skips it;
 * authentication and the rate limits still apply.
 */
export const ChecksAccessPerOperation = (): MethodDecorator & ClassDecorator =>
  SetMetadata(ACCESS_PER_OPERATION, true);
