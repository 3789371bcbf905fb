import { Module } from '@nestjs/common';
import { AuditTrailModule } from '@app/audit-trail';
import { IdentityModule } from '@app/identity';
import { ConfirmationPoliciesController } from './confirmation-policies.controller.js';
import { ConfirmationPolicies } from './confirmation-policies.service.js';
import { ConfirmationPolicyReaderModule } from './confirmation-policy-reader.module.js';

/**
 * The admin API of confirmation policies: `GET /v1/mcp/confirmation-policies` and
 * `PATCH /v1/mcp/confirmation-policies/{tool}` (`org:admin` + `admin`, audited).
 */
@Module({
  imports: [IdentityModule, AuditTrailModule, ConfirmationPolicyReaderModule],
  controllers: [ConfirmationPoliciesController],
  providers: [ConfirmationPolicies],
})
export class ConfirmationPoliciesModule {}
