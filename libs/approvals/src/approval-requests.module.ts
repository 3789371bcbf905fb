import { Module } from '@nestjs/common';
import { AuditWriterModule } from '@app/audit-trail';
import { IdentityModule } from '@app/identity';
import { MailTransportModule } from '@app/mail';
import { ApprovalRequests } from './approval-requests.service.js';
import { ApprovalsRepository } from './approvals.repository.js';

/**
 * The gate's side alone, for the tool executor: {@link ApprovalRequests} (find, record, use a
 * request; tell the admins). The admin API is {@link ApprovalsModule}, which the app wires and the
 * executor never imports. Needs the global AppConfig and the app's TypeORM connection.
 */
@Module({
  imports: [IdentityModule, AuditWriterModule, MailTransportModule],
  providers: [ApprovalsRepository, ApprovalRequests],
  exports: [ApprovalsRepository, ApprovalRequests],
})
export class ApprovalRequestsModule {}
