export * from './access-vocabulary.js';
export {
  ACCESS_REQUIREMENT,
  RequiresAccess,
  type AccessRequirement,
} from './access-requirement.js';
export { requirementOf, scoped, type EndpointAccess } from './endpoint-access.js';
export { IS_PUBLIC, Public } from './public.decorator.js';
