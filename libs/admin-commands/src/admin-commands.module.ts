import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { OAuthServerModule } from '@app/oauth-server';
import { OrganizationSetup } from './organization-setup.service.js';

/** The `admin` command's operations (first organisation, people, tokens for scripts). */
@Module({
  imports: [IdentityModule, OAuthServerModule],
  providers: [OrganizationSetup],
  exports: [OrganizationSetup],
})
export class AdminCommandsModule {}
