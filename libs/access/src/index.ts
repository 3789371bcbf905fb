export type { AccessRequirement } from '@app/access-vocabulary';
export * from './access-checks.js';
export { AccessPolicy } from './access.policy.js';
export { AccessGuard, routeRequirementOf, sameRequirement } from './access.guard.js';
export { AccessModule } from './access.module.js';
export {
  ACCESS_PER_OPERATION,
  ACCESS_REQUIREMENT,
  ChecksAccessPerOperation,
  RequiresAccess,
} from './requires-access.decorator.js';
