export type { CallerContext, Channel, Principal } from './principal.js';
export type {
  ApiToken,
  Membership,
  Organization,
  Person,
  PersonMembership,
  User,
} from './identity.types.js';
export { BearerAuthGuard } from './bearer-auth.guard.js';
export { McpResource } from './mcp-resource.decorator.js';
export { IdentityModule } from './identity.module.js';
export { IdentityRepository } from './identity.repository.js';
export {
  MembershipsRepository,
  type MemberRow,
  type MembershipValues,
} from './memberships.repository.js';
export { TokensRepository, type NewToken, type OAuthAccessToken } from './tokens.repository.js';
export { RequestContext } from './request-context.js';
export { TokensService, type IssueTokenInput, type IssuedToken } from './tokens.service.js';
export {
  displayPrefix,
  hashTokenSecret,
  looksLikeTokenSecret,
  newTokenSecret,
} from './token-secret.js';
export { redactUrl, REDACTED } from './url-redaction.js';
export { PrincipalCache, PRINCIPAL_CHANGED_CHANNEL } from './principal-cache.js';
export {
  DPOP_PROOF_WINDOW_SECONDS,
  DPOP_SIGNING_ALGORITHMS,
  DpopProofVerifier,
} from './dpop-proof.verifier.js';
