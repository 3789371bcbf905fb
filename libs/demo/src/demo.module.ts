import { Module } from '@nestjs/common';
import { AccountsModule } from '@app/accounts';
import { IdentityModule } from '@app/identity';
import { PortalUsersModule } from '@app/portal-users';
import { DemoSeeder } from './demo.seeder.js';
import { PlatformDemoContent } from './platform-demo-content.js';

@Module({
  imports: [IdentityModule, AccountsModule, PortalUsersModule],
  providers: [DemoSeeder, PlatformDemoContent],
  exports: [DemoSeeder],
})
export class DemoModule {}
