import { Module } from '@nestjs/common';
import { AuditTrailModule } from '@app/audit-trail';
import { IdentityModule } from '@app/identity';
import { OAuthServerModule } from '@app/oauth-server';
import { OrganizationSetup } from './organization-setup.service.js';

/** The `admin` command's operations (first organisation, people, tokens for scripts). */
@Module({
  imports: [IdentityModule, OAuthServerModule, AuditTrailModule],
  providers: [OrganizationSetup],
  exports: [OrganizationSetup],
})
export class AdminCommandsModule {}
