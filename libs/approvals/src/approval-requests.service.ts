import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { argumentsDigest, unreachable } from '@app/common';
import { AuditTrail, type AuditActor } from '@app/audit-trail';
import { AppConfig } from '@app/config';
import { IdentityRepository, MembershipsRepository, type CallerContext } from '@app/identity';
import { MAIL_TRANSPORT, type MailTransport } from '@app/mail';
import type { Approval, ApprovalBinding } from './approval.js';
import { approvalRequestMail } from './approval-mail.js';
import { ApprovalsRepository } from './approvals.repository.js';

/**
 * A call arriving this soon after the same call ran under an approval is a duplicate of it (one
 * of several retries sent at once, which read the target before the winner changed it): it is
 * told the approval was used, instead of asking the admins again. Later, the same call asks anew.
 */
export const REPLAY_WINDOW_SECONDS = 60;

/** The tool call a gate judges under the `approval` policy. */
export interface ApprovalCall {
  caller: CallerContext;
  tool: string;
  /** The tool call's `arguments`, exactly as received. */
  args: Record<string, unknown>;
  targetType: string;
  targetId: string;
  /** The question (record text already passed through sanitizeForPrompt). */
  message: string;
  protocolVersion: string;
  /** The tool's policy in force now. */
  policy: { version: number; expirySeconds: number };
}

/**
 * What the call may do now:
 * - `run`: this caller used the approved request (single use); run the tool once;
 * - `pending`: a request waits for another admin (`created`: this call made it; `superseded`: an
 *   earlier one was asked under an older policy version and no longer counts);
 * - `denied` / `expired`: told once, with the request (the next call asks again);
 * - `replayed`: the approved request was used by a concurrent retry (or ran within
 *   {@link REPLAY_WINDOW_SECONDS}); nothing runs.
 */
export type ApprovalOutcome =
  | { kind: 'run'; approval: Approval }
  | { kind: 'pending'; approval: Approval; created: boolean; superseded: boolean }
  | { kind: 'denied'; approval: Approval }
  | { kind: 'expired'; approval: Approval }
  | { kind: 'replayed'; approval: Approval };

/**
 * What a task waiting for request `approvalId` may do now ({@link ApprovalRequests.forTask}): as
 * {@link ApprovalOutcome}, and `superseded` when the request was asked under another version of
 * the policy than the one in force (it no longer counts; nothing runs).
 */
export type TaskApprovalOutcome =
  | Exclude<ApprovalOutcome, { kind: 'pending' }>
  | { kind: 'pending'; approval: Approval }
  | { kind: 'superseded'; approval: Approval };

/** A task's approval request, judged for its requester under the policy in force. */
export interface TaskApprovalCall {
  approvalId: string;
  caller: CallerContext;
  policy: { version: number; expirySeconds: number };
}

/** What withdrawing a task's request did: closed it, found it already used, or already closed. */
export type Withdrawal = 'withdrawn' | 'executed' | 'closed';

/**
 * The gate's side of four-eyes approval: finds the request a tool call is bound to (requester
 * person and token, tool, arguments digest, policy version), or records a new one and tells the
 * organisation's admins. Every change is audited in its own transaction with the requester as the
 * actor; database failures propagate (the gate answers `confirmation_unavailable`).
 */
@Injectable()
export class ApprovalRequests {
  private readonly logger = new Logger(ApprovalRequests.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly approvals: ApprovalsRepository,
    private readonly audit: AuditTrail,
    private readonly memberships: MembershipsRepository,
    private readonly identity: IdentityRepository,
    private readonly config: AppConfig,
    @Inject(MAIL_TRANSPORT) private readonly mail: MailTransport,
  ) {}

  /**
   * The organisation's request `id` as it stands (for the call history's chain: asked, decided,
   * executed); undefined when the organisation has none by that id.
   */
  find(organizationId: string, id: string): Promise<Approval | undefined> {
    return this.approvals.findInOrganization(organizationId, id);
  }

  async forCall(call: ApprovalCall): Promise<ApprovalOutcome> {
    const p = call.caller.principal;
    const binding: ApprovalBinding = {
      organizationId: p.organizationId,
      tokenId: p.tokenId,
      userId: p.userId,
      tool: call.tool,
      argumentsDigest: argumentsDigest(call.args),
    };
    const actor = this.audit.memberActor(call.caller);
    let superseded = false;
    const open = await this.approvals.findOpen(binding);
    if (open !== undefined) {
      const { approval } = open;
      if (open.lapsed) {
        await this.expire(approval, actor);
      } else if (approval.policyVersion !== call.policy.version) {
        // Asked (and perhaps decided) under another version of the policy: it no longer counts.
        superseded = await this.approvals.supersede(approval.id, call.policy.version);
      } else if (approval.status === 'approved') {
        const used = await this.consume(
          approval,
          binding,
          call.policy.version,
          call.caller.requestId,
          actor,
        );
        return used === undefined
          ? { kind: 'replayed', approval }
          : { kind: 'run', approval: used };
      } else if (approval.status === 'pending') {
        return { kind: 'pending', approval, created: false, superseded: false };
      }
    }
    if (open === undefined) {
      const ran = await this.approvals.executedWithin(binding, REPLAY_WINDOW_SECONDS);
      if (ran !== undefined) return { kind: 'replayed', approval: ran };
    }
    const closed = await this.approvals.findUnreported(binding);
    if (closed !== undefined && (await this.approvals.markReported(closed.id))) {
      switch (closed.status) {
        case 'denied':
          return { kind: 'denied', approval: closed };
        case 'expired':
          return { kind: 'expired', approval: closed };
        case 'pending':
        case 'approved':
        case 'executed':
        case 'superseded':
          break; // not what findUnreported returns; ask again below
        default:
          return unreachable(closed.status);
      }
    }
    return this.request(binding, call, actor, superseded);
  }

  private async request(
    binding: ApprovalBinding,
    call: ApprovalCall,
    actor: AuditActor,
    superseded: boolean,
  ): Promise<ApprovalOutcome> {
    const p = call.caller.principal;
    const created = await this.ds.transaction(async (tx) => {
      const approval = await this.approvals.insertPending(tx, {
        binding,
        requesterName: p.userName,
        requesterEmail: p.userEmail,
        arguments: call.args,
        targetType: call.targetType,
        targetId: call.targetId,
        message: call.message,
        clientName: call.caller.clientName,
        protocolVersion: call.protocolVersion,
        requestId: call.caller.requestId,
        policyVersion: call.policy.version,
        expirySeconds: call.policy.expirySeconds,
      });
      if (approval === undefined) return undefined;
      await this.audit.record(
        tx,
        {
          action: 'approval.requested',
          resourceType: 'approval',
          resourceId: approval.id,
          resourceLabel: labelOf(approval),
          changes: {
            status: { before: null, after: 'pending' },
            tool: { before: null, after: approval.tool },
            target_id: { before: null, after: approval.targetId },
            policy_version: { before: null, after: approval.policyVersion },
            expires_at: { before: null, after: approval.expiresAt.toISOString() },
          },
        },
        actor,
      );
      return approval;
    });
    if (created !== undefined) {
      await this.tellApprovers(created);
      return { kind: 'pending', approval: created, created: true, superseded };
    }
    // A concurrent retry recorded the request first: answer with that one.
    const open = await this.approvals.findOpen(binding);
    if (open === undefined) throw new Error('An open approval request vanished while asking');
    return { kind: 'pending', approval: open.approval, created: false, superseded };
  }

  /**
   * The request a task waits for, found by its id for its requester (their person and
   * organisation: the task's owner, whichever of their tokens polls), judged as the retry of a
   * call would be: lapsed → expired; asked under another policy version → superseded; approved →
   * used once by the one caller whose conditional update wins (the same single use as a retry);
   * denied / expired are marked told, so no later retry reports them again. Throws when the
   * request is not the caller's (the task names it, so that is a fault, not an answer).
   */
  async forTask(call: TaskApprovalCall): Promise<TaskApprovalOutcome> {
    const p = call.caller.principal;
    const found = await this.approvals.findRequested(call.approvalId, p.organizationId, p.userId);
    if (found === undefined)
      throw new Error(`Approval request ${call.approvalId} is not the caller's`);
    const { approval, lapsed } = found;
    const actor = this.audit.memberActor(call.caller);
    if (approval.status === 'pending' || approval.status === 'approved') {
      if (lapsed) {
        await this.expire(approval, actor);
        await this.approvals.markReported(approval.id);
        return { kind: 'expired', approval: { ...approval, status: 'expired' } };
      }
      if (approval.policyVersion !== call.policy.version) {
        await this.approvals.supersede(approval.id, call.policy.version);
        return { kind: 'superseded', approval };
      }
      if (approval.status === 'pending') return { kind: 'pending', approval };
      // Its own binding (an Approval carries it), whichever token presents it now.
      const used = await this.consume(
        approval,
        approval,
        call.policy.version,
        call.caller.requestId,
        actor,
      );
      return used === undefined ? { kind: 'replayed', approval } : { kind: 'run', approval: used };
    }
    switch (approval.status) {
      case 'denied':
        await this.approvals.markReported(approval.id);
        return { kind: 'denied', approval };
      case 'expired':
        await this.approvals.markReported(approval.id);
        return { kind: 'expired', approval };
      case 'executed':
        return { kind: 'replayed', approval };
      case 'superseded':
        return { kind: 'superseded', approval };
      default:
        return unreachable(approval.status);
    }
  }

  /**
   * The requester withdraws the request a task waits for (they cancelled the task): an open
   * request is closed (`expired`, told), audited as `approval.withdrawn` with the requester as
   * actor, and no admin can decide it any more. One already used cannot be withdrawn.
   */
  async withdraw(approvalId: string, caller: CallerContext): Promise<Withdrawal> {
    const p = caller.principal;
    const actor = this.audit.memberActor(caller);
    const withdrawn = await this.ds.transaction(async (tx) => {
      const closed = await this.approvals.withdraw(tx, approvalId, p.organizationId, p.userId);
      if (closed === undefined) return undefined;
      await this.audit.record(
        tx,
        {
          action: 'approval.withdrawn',
          resourceType: 'approval',
          resourceId: closed.id,
          resourceLabel: labelOf(closed),
          changes: { status: { before: 'pending', after: 'expired' } },
        },
        actor,
      );
      return closed;
    });
    if (withdrawn !== undefined) return 'withdrawn';
    const found = await this.approvals.findRequested(approvalId, p.organizationId, p.userId);
    return found?.approval.status === 'executed' ? 'executed' : 'closed';
  }

  private consume(
    approval: Approval,
    binding: ApprovalBinding,
    policyVersion: number,
    requestId: string,
    actor: AuditActor,
  ): Promise<Approval | undefined> {
    return this.ds.transaction(async (tx) => {
      const used = await this.approvals.consume(tx, approval.id, binding, policyVersion, requestId);
      if (used === undefined) return undefined;
      await this.audit.record(
        tx,
        {
          action: 'approval.executed',
          resourceType: 'approval',
          resourceId: used.id,
          resourceLabel: labelOf(used),
          changes: { status: { before: 'approved', after: 'executed' } },
        },
        actor,
      );
      return used;
    });
  }

  private async expire(approval: Approval, actor: AuditActor): Promise<void> {
    await this.ds.transaction(async (tx) => {
      const expired = await this.approvals.expire(tx, approval.id);
      if (expired === undefined) return;
      await this.audit.record(
        tx,
        {
          action: 'approval.expired',
          resourceType: 'approval',
          resourceId: expired.id,
          resourceLabel: labelOf(expired),
          changes: {
            status: { before: approval.status, after: 'expired' },
            expires_at: { before: null, after: expired.expiresAt.toISOString() },
          },
        },
        actor,
      );
    });
  }

  /**
   * One mail to each active admin but the requester, through the organisation's mail service (SMTP
   * or its outbox), after the request committed. A mail that cannot be sent is logged, not the
   * caller's problem: the request stands and the console shows it.
   */
  private async tellApprovers(approval: Approval): Promise<void> {
    try {
      const [admins, organization] = await Promise.all([
        this.memberships.activeAdmins(approval.organizationId),
        this.identity.findOrganization(approval.organizationId),
      ]);
      for (const admin of admins) {
        if (admin.user_id === approval.userId) continue;
        const message = approvalRequestMail({
          approval,
          organizationName: organization?.name ?? '',
          to: admin.email,
          name: admin.name,
          consoleUrl: `${this.config.baseUrl}/admin/approvals`,
        });
        // The outbox writes a row (a transaction of its own); SMTP needs no database connection
        // held while it talks to the mail server.
        if (this.mail.kind === 'outbox')
          await this.ds.transaction((tx) => this.mail.send(tx, message));
        else await this.mail.send(this.ds.manager, message);
      }
    } catch (err) {
      this.logger.warn(
        { err, approvalId: approval.id },
        'could not tell the admins of an approval request',
      );
    }
  }
}

/** How the audit trail names a request: the tool and what it acts on. */
export function labelOf(a: Pick<Approval, 'tool' | 'targetType' | 'targetId'>): string {
  return `${a.tool} ${a.targetType} ${a.targetId}`;
}
