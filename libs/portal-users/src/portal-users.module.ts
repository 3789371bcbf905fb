import { Module } from '@nestjs/common';
import { AuditTrailModule } from '@app/audit-trail';
import { IdentityModule } from '@app/identity';
import { MailModule } from '@app/mail';
import { PortalInvitationsController } from './portal-invitations.controller.js';
import { PortalUsersController } from './portal-users.controller.js';
import { PortalUsersRepository } from './portal-users.repository.js';
import { PortalUsersService } from './portal-users.service.js';

/** Portal users: `/v1/portal-users` and the public `/v1/portal-invitations/{token}/accept`. */
@Module({
  imports: [IdentityModule, AuditTrailModule, MailModule],
  controllers: [PortalUsersController, PortalInvitationsController],
  providers: [PortalUsersRepository, PortalUsersService],
  exports: [PortalUsersRepository],
})
export class PortalUsersModule {}
