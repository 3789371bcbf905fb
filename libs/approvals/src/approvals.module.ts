import { Module } from '@nestjs/common';
import { AuditTrailModule } from '@app/audit-trail';
import { ConfirmationPolicyReaderModule } from '@app/confirmation-policies';
import { IdentityModule } from '@app/identity';
import { ApprovalRequestsModule } from './approval-requests.module.js';
import { ApprovalsController } from './approvals.controller.js';
import { Approvals } from './approvals.service.js';

/**
 * The admin API of approval requests: `GET /v1/mcp/approvals`, `GET
 * /v1/mcp/approvals/pending-count`, `POST /v1/mcp/approvals/{id}/approve|deny` (`org:admin` +
 * `admin`, audited).
 */
@Module({
  imports: [
    IdentityModule,
    AuditTrailModule,
    ConfirmationPolicyReaderModule,
    ApprovalRequestsModule,
  ],
  controllers: [ApprovalsController],
  providers: [Approvals],
})
export class ApprovalsModule {}
