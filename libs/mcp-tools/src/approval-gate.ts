import { unreachable } from '@app/common';
import type { ApprovalOutcome, ApprovalRequests, TaskApprovalOutcome } from '@app/approvals';
import type { ConfirmationPolicy } from '@app/confirmation-policies';
import type { CallerContext } from '@app/identity';
import { ConfirmationUnavailableError } from '@app/mcp-confirmations';
import type { MetricsService } from '@app/metrics';
import { declaresExtension, TASKS_EXTENSION } from '@app/mcp-transport';
import { approvalRefused, refused, type GateCall, type GateDecision } from './gate-decision.js';
import { questionOf } from './gate-question.js';
import type { RestDispatcher } from './rest-dispatcher.js';
import type { CompiledTool } from './tool-catalog.js';

/**
 * The gate's `approval` path (four-eyes): no elicitation, so any client of either era. The
 * question is asked of the admins, not the person: the request bound to this call is found or
 * recorded, and the answer says where it stands, with the request's id; the retry (or the task
 * that waits for it) learns the decision and uses an approval once. Built by
 * {@link DestructiveToolGate} from its own collaborators.
 */
export class ApprovalGate {
  constructor(
    private readonly approvals: ApprovalRequests,
    private readonly metrics: MetricsService,
    private readonly dispatcher: RestDispatcher,
  ) {}

  /** A call under `approval`: its request found or recorded, and where it stands. */
  async forCall(call: GateCall): Promise<GateDecision> {
    const question = await questionOf(this.dispatcher, call);
    if ('kind' in question) return question;
    const { tool, args, ctx, caller } = call;
    let outcome: ApprovalOutcome;
    try {
      outcome = await this.approvals.forCall({
        caller,
        tool: question.tool,
        args,
        targetType: question.targetType,
        targetId: question.targetId,
        message: question.message,
        protocolVersion: question.protocolVersion,
        policy: question.policy,
      });
    } catch (err) {
      throw new ConfirmationUnavailableError(err);
    }
    return this.decide(tool, outcome, declaresExtension(ctx.clientCapabilities, TASKS_EXTENSION));
  }

  /**
   * A task's approval request, polled by its requester (`tasks/get`): judged under `policy`, the
   * one in force now, as the same call's retry would be. `proceed` means this caller used the
   * approval (once, whatever the number of replicas and concurrent polls); `await_approval` that
   * it still waits; `approval_denied` / `approval_expired` end the task; a policy that changed
   * since (another version, or no longer `approval`) makes the request count for nothing
   * (`approval_expired`).
   */
  async forTask(
    tool: CompiledTool,
    approvalId: string,
    caller: CallerContext,
    policy: ConfirmationPolicy,
  ): Promise<GateDecision> {
    if (policy.mode !== 'approval') {
      return approvalRefused(
        'approval_expired',
        `The confirmation policy of ${tool.def.name} changed (mode "${policy.mode}") before approval request ` +
          `${approvalId} was used, so it no longer counts. Nothing was run; call the tool again.`,
        approvalId,
      );
    }
    let outcome: TaskApprovalOutcome;
    try {
      outcome = await this.approvals.forTask({
        approvalId,
        caller,
        policy: { version: policy.version, expirySeconds: policy.expirySeconds },
      });
    } catch (err) {
      throw new ConfirmationUnavailableError(err);
    }
    if (outcome.kind === 'superseded') {
      this.metrics.recordConfirmation('superseded');
      return approvalRefused(
        'approval_expired',
        `Approval request ${approvalId} for ${tool.def.name} was asked under an older confirmation policy ` +
          'and no longer counts. Nothing was run; call the tool again to request a new approval.',
        approvalId,
      );
    }
    return this.decide(
      tool,
      outcome.kind === 'pending' ? { ...outcome, created: false, superseded: false } : outcome,
      true,
    );
  }

  /** An approval request's state as the gate's decision; `asTask`: a pending one is awaited. */
  private decide(tool: CompiledTool, outcome: ApprovalOutcome, asTask: boolean): GateDecision {
    const a = outcome.approval;
    switch (outcome.kind) {
      case 'run':
        this.metrics.recordConfirmation('consumed');
        return { kind: 'proceed', confirmationId: null, approvalId: a.id };
      case 'pending': {
        if (outcome.created) this.metrics.recordConfirmation('asked');
        const whoDecides =
          `A member of the organisation with the admin permission other than ${a.requesterName} ` +
          "approves or denies it on the admin console's Approvals page. Nothing was run. ";
        if (asTask) {
          return {
            kind: 'await_approval',
            confirmationId: null,
            approvalId: a.id,
            message:
              `${tool.def.name} runs only after another admin approves it: request ${a.id}, until ` +
              `${a.expiresAt.toISOString()}. ${whoDecides}This task completes with the tool's result ` +
              'once it is approved (poll tasks/get), or fails with approval_denied or approval_expired.',
            expiresAt: a.expiresAt,
            expirySeconds: a.expirySeconds,
          };
        }
        return approvalRefused(
          'approval_pending',
          `${tool.def.name} runs only after another admin approves it. ` +
            (outcome.superseded
              ? 'The earlier request was made under an older confirmation policy and no longer counts, so a new approval was requested: '
              : outcome.created
                ? 'An approval was requested: '
                : 'The approval request is still waiting: ') +
            `request ${a.id}, until ${a.expiresAt.toISOString()}. ${whoDecides}` +
            'Once it is approved, call the tool again with the same arguments and it runs once.',
          a.id,
        );
      }
      case 'denied':
        this.metrics.recordConfirmation('declined');
        return approvalRefused(
          'approval_denied',
          `${a.decidedByName ?? 'An admin'} denied request ${a.id} for ${tool.def.name} (reason: ${a.reason ?? 'none given'}). ` +
            'Nothing was changed. Do not retry; calling again asks for a new approval.',
          a.id,
        );
      case 'expired':
        this.metrics.recordConfirmation('expired');
        return approvalRefused(
          'approval_expired',
          `Approval request ${a.id} for ${tool.def.name} expired at ${a.expiresAt.toISOString()} before it was ` +
            `${a.status === 'expired' && a.decidedAt !== null ? 'used' : 'decided'}. Nothing was run; call the tool again to request a new approval.`,
          a.id,
        );
      case 'replayed':
        this.metrics.recordConfirmation('replayed');
        return refused(
          null,
          'confirmation_replayed',
          `Approval ${a.id} was already used by another call; each approval runs one call once. Nothing was run.`,
        );
      default:
        return unreachable(outcome);
    }
  }
}
