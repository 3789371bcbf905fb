export * from './access-vocabulary.js';
export type { CallerContext, Channel, Principal } from './principal.js';
export { ApiTokenEntity, MembershipEntity, OrganizationEntity, UserEntity } from './entities.js';
export { BearerAuthGuard } from './bearer-auth.guard.js';
export { IdentityModule } from './identity.module.js';
export { IdentityRepository, type MemberView } from './identity.repository.js';
export { ME_ENDPOINTS, MeResponse } from './me.controller.js';
export {
  INTERNAL_DISPATCH_HEADER,
  InternalDispatchRegistry,
} from './internal-dispatch.registry.js';
export { Public, IS_PUBLIC } from './public.decorator.js';
export { RequestContext } from './request-context.js';
export { TokensService, type IssueTokenInput, type IssuedToken } from './tokens.service.js';
export {
  displayPrefix,
  hashTokenSecret,
  looksLikeTokenSecret,
  newTokenSecret,
} from './token-secret.js';
