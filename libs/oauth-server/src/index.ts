export { OAuthServerModule } from './oauth-server.module.js';
export {
  CSRF_HEADER,
  PersonSessionService,
  type SignedInPerson,
} from './person-session.service.js';
export { SignInLinkService, type IssuedSignInLink } from './sign-in-links.service.js';
export { safeReturnPath } from './browser-secrets.js';
export { mountOAuthServer } from './oauth-server.mount.js';
export { OAuthProviderService } from './oauth-provider.service.js';
export { OAuthHousekeeping, type SweepResult } from './oauth-housekeeping.service.js';
export { oauthParameterRefusal } from './oauth-server.middleware.js';
export { esc, hidden, HtmlPage, layout, messagePage } from './pages.js';
export { answerPage, formFields, type PageOutcome } from './page-outcome.js';
