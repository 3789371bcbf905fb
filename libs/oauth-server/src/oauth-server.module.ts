import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { MailModule } from '@app/mail';
import { AuditTrailModule } from '@app/audit-trail';
import { RateLimitModule } from '@app/rate-limit';
import { ConsentController } from './consent.controller.js';
import { ConsentService } from './consent.service.js';
import { OAuthHousekeeping } from './oauth-housekeeping.service.js';
import { OAuthProviderService } from './oauth-provider.service.js';
import { OAuthRecordsRepository } from './oauth-records.repository.js';
import { PeopleRepository } from './people.repository.js';
import { PersonSessionService } from './person-session.service.js';
import { SignInController } from './sign-in.controller.js';
import { SignInLinkService } from './sign-in-links.service.js';
import { UpstreamOidcService } from './upstream-oidc.service.js';

/**
 * The OAuth authorization server of the MCP endpoint and the person's sign-in: browser sessions,
 * one-time e-mail links, the upstream OpenID Connect provider, and the consent page.
 */
@Module({
  imports: [IdentityModule, MailModule, AuditTrailModule, RateLimitModule],
  controllers: [SignInController, ConsentController],
  providers: [
    PeopleRepository,
    PersonSessionService,
    SignInLinkService,
    UpstreamOidcService,
    OAuthRecordsRepository,
    OAuthProviderService,
    ConsentService,
    OAuthHousekeeping,
  ],
  exports: [PersonSessionService, SignInLinkService, OAuthProviderService],
})
export class OAuthServerModule {}
