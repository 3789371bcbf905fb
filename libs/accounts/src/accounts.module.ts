import { Module } from '@nestjs/common';
import { AuditTrailModule } from '@app/audit-trail';
import { IdentityModule } from '@app/identity';
import { AccountsController } from './accounts.controller.js';
import { AccountsRepository } from './accounts.repository.js';
import { AccountsService } from './accounts.service.js';

/** Customer accounts: `/v1/accounts`. */
@Module({
  imports: [IdentityModule, AuditTrailModule],
  controllers: [AccountsController],
  providers: [AccountsRepository, AccountsService],
  exports: [AccountsRepository],
})
export class AccountsModule {}
