import { Module } from '@nestjs/common';
import { AuditTrailModule } from '@app/audit-trail';
import { IdentityModule } from '@app/identity';
import { MailModule } from '@app/mail';
import { InvitationFormTokens } from './invitation-form-token.js';
import { InvitationPagesService } from './invitation-pages.service.js';
import { PortalInvitationsController } from './portal-invitations.controller.js';
import { PortalUsersController } from './portal-users.controller.js';
import { PortalUsersRepository } from './portal-users.repository.js';
import { PortalUsersService } from './portal-users.service.js';

/**
 * Portal users: `/v1/portal-users` and the public invitation link
 * `/v1/portal-invitations/{token}/accept` (GET: the page for browsers; POST: accept).
 */
@Module({
  imports: [IdentityModule, AuditTrailModule, MailModule],
  controllers: [PortalUsersController, PortalInvitationsController],
  providers: [
    PortalUsersRepository,
    PortalUsersService,
    InvitationFormTokens,
    InvitationPagesService,
  ],
  exports: [PortalUsersRepository],
})
export class PortalUsersModule {}
