import { SetMetadata } from '@nestjs/common';
import type { AccessRequirement } from './access-requirement.js';

export const ACCESS_REQUIREMENT = 'access:requirement';

/** Declares a route's scope and permission; {@link AccessGuard} enforces them after authentication. */
export const RequiresAccess = (requirement: AccessRequirement): MethodDecorator & ClassDecorator =>
  SetMetadata(ACCESS_REQUIREMENT, requirement);
