import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AuditTrail } from '@app/audit-trail';
import { ConfirmationPolicyReader } from '@app/confirmation-policies';
import { DomainError } from '@app/errors';
import { RequestContext } from '@app/identity';
import { readListedPage, type Page, type Plain } from '@app/rest-contract';
import { visibleStatus, type Approval } from './approval.js';
import { labelOf } from './approval-requests.service.js';
import type {
  ApprovalDto,
  ListApprovalsQueryDto,
  PendingApprovalCountDto,
} from './approvals.dto.js';
import { ApprovalsRepository } from './approvals.repository.js';

/**
 * The admins' side of four-eyes approval: list the organisation's requests, count the pending
 * ones, approve or deny one. The requester never decides their own request (403), a request is
 * decided once (409 afterwards), and a request asked under another version of the tool's
 * confirmation policy than the one in force is refused (409): the requester's next call asks again.
 */
@Injectable()
export class Approvals {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly approvals: ApprovalsRepository,
    private readonly policies: ConfirmationPolicyReader,
    private readonly audit: AuditTrail,
    private readonly context: RequestContext,
  ) {}

  list(query: ListApprovalsQueryDto): Promise<Page<Plain<ApprovalDto>>> {
    const now = new Date();
    return readListedPage(
      query,
      (window) =>
        this.approvals.list({
          organizationId: this.context.organizationId,
          status: query.status,
          ...window,
        }),
      (a) => toApprovalDto(a, now),
    );
  }

  async countPending(): Promise<Plain<PendingApprovalCountDto>> {
    return {
      pending: await this.approvals.countPending(this.context.organizationId),
    };
  }

  async decide(
    id: string,
    to: 'approved' | 'denied',
    reason: string | undefined,
  ): Promise<Plain<ApprovalDto>> {
    const principal = this.context.principal;
    // The tool's policy now, read before the transaction holds a connection (the replica's cache
    // may need one); a change committed after this read is caught by the retry's own check.
    const tool = await this.approvals.toolOf(principal.organizationId, id);
    if (tool === undefined) throw DomainError.notFound('Approval request');
    const policy = await this.policies.policyFor(principal.organizationId, tool);
    return this.ds.transaction(async (tx) => {
      const found = await this.approvals.lock(tx, principal.organizationId, id);
      if (found === undefined) throw DomainError.notFound('Approval request');
      const { approval } = found;
      if (approval.userId === principal.userId) {
        throw new DomainError(
          'FORBIDDEN',
          'You made this request yourself: another member with the admin permission must approve or deny it.',
        );
      }
      if (approval.status !== 'pending' || found.lapsed) {
        // By the database's clock: a lapsed open request is expired.
        const status = found.lapsed ? 'expired' : approval.status;
        throw new DomainError(
          'CONFLICT',
          `This request is ${status} already; nothing was changed.`,
          [{ field: 'status', message: `is ${status}` }],
        );
      }
      if (policy.version !== approval.policyVersion || policy.mode !== 'approval') {
        throw new DomainError(
          'CONFLICT',
          `The confirmation policy of ${approval.tool} changed since this request was made (version ` +
            `${approval.policyVersion}, now ${policy.version}), so a decision on it no longer counts; ` +
            'the requester’s next call follows the current policy.',
          [{ field: 'policy_version', message: `is ${policy.version} now` }],
        );
      }
      const decided = await this.approvals.decide(
        tx,
        approval.id,
        to,
        {
          userId: principal.userId,
          name: principal.userName,
          // A signed-in session is the console's; anything else is a personal token on the API.
          via: principal.tokenKind === 'session' ? 'console' : 'api',
          tokenName: principal.tokenKind === 'session' ? null : principal.tokenName,
        },
        reason ?? null,
      );
      if (decided === undefined) throw new Error('A locked pending request did not change');
      await this.audit.record(tx, {
        action: to === 'approved' ? 'approval.approved' : 'approval.denied',
        resourceType: 'approval',
        resourceId: decided.id,
        resourceLabel: labelOf(decided),
        changes: {
          status: { before: 'pending', after: to },
          reason: { before: null, after: decided.reason },
          requester: { before: null, after: decided.requesterEmail },
          expires_at: {
            before: approval.expiresAt.toISOString(),
            after: decided.expiresAt.toISOString(),
          },
        },
      });
      return toApprovalDto(decided, new Date());
    });
  }
}

export function toApprovalDto(a: Approval, now: Date): Plain<ApprovalDto> {
  return {
    id: a.id,
    tool: a.tool,
    status: visibleStatus(a, now),
    message: a.message,
    arguments: a.arguments,
    target_type: a.targetType,
    target_id: a.targetId,
    requester_id: a.userId,
    requester_name: a.requesterName,
    requester_email: a.requesterEmail,
    client_name: a.clientName,
    token_id: a.tokenId,
    policy_version: a.policyVersion,
    created_at: a.createdAt.toISOString(),
    expires_at: a.expiresAt.toISOString(),
    decided_at: a.decidedAt?.toISOString() ?? null,
    decided_by: a.decidedBy,
    decided_by_name: a.decidedByName,
    decided_via: a.decidedVia,
    reason: a.reason,
    executed_at: a.executedAt?.toISOString() ?? null,
  };
}
