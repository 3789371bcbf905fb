import { Module } from '@nestjs/common';
import { AccessModule } from '@app/access';
import { AuditTrailModule } from '@app/audit-trail';
import { IdentityModule } from '@app/identity';
import { MembersController } from './members.controller.js';
import { MembersService } from './members.service.js';
import { OrganizationTokensService } from './organization-tokens.service.js';
import { TokensController } from './tokens.controller.js';

/**
 * Organisation administration over REST: `/v1/members` and `/v1/tokens`. A library of its own
 * (not inside identity) because its routes need `@RequiresAccess` and the audit trail, which both
 * depend on identity.
 */
@Module({
  imports: [IdentityModule, AccessModule, AuditTrailModule],
  controllers: [MembersController, TokensController],
  providers: [MembersService, OrganizationTokensService],
})
export class OrgAdminModule {}
