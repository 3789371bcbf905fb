import { isJsonObject } from '@app/common';
import { isDatabaseUnavailable } from '@app/database';
import { mapRestException } from '@app/errors';
import { Injectable, Logger } from '@nestjs/common';
import { ApprovalRequests } from '@app/approvals';
import { ConfirmationPolicyReader, type ConfirmationPolicy } from '@app/confirmation-policies';
import type { CallerContext } from '@app/identity';
import {
  CONFIRMATION_INPUT_KEY,
  ConfirmationService,
  ConfirmationUnavailableError,
  elicitationRequest,
  parseAnswer,
  VerifiedConfirmationService,
  type RedeemOutcome,
} from '@app/mcp-confirmations';
import { MetricsService } from '@app/metrics';
import { INVALID_PARAMS, McpError, type McpRequestContext } from '@app/mcp-transport';
import { inSpanAsync } from '@app/tracing';
import { ApprovalGate } from './approval-gate.js';
import {
  afterRedemption,
  bindingOf,
  refused,
  SPAN_ASK,
  SPAN_REDEEM,
  type GateCall,
  type GateDecision,
} from './gate-decision.js';
import { questionOf, readTarget } from './gate-question.js';
import { RestDispatcher } from './rest-dispatcher.js';
import { pathParamsOf, type CompiledTool } from './tool-catalog.js';
import type { ConfirmationSpec } from './tool-definition.js';
import { VerifiedGate } from './verified-gate.js';

/** Form elicitation is declared as `elicitation: {}` (form implied) or `elicitation: { form: {} }`. */
export function declaresFormElicitation(capabilities: Record<string, unknown>): boolean {
  const e = capabilities.elicitation;
  if (!isJsonObject(e)) return false;
  return e.form !== undefined || e.url === undefined;
}

/**
 * A destructive tool runs only after the decision its organisation's confirmation policy asks for,
 * once per decision. The policy is read on every call (the replica's cache, current within a
 * second of a change). `form` with a 2026-07-28 client declaring form elicitation (this file):
 * read the target (the question names it; a missing one is the API's 404) → ask (input_required)
 * → the retry redeems the ledger row atomically, under the same policy version → run. The endpoint
 * itself answers NOT_FOUND if the target went away meanwhile. `approval`, any client of either era
 * ({@link ApprovalGate}): read the target → the request bound to this call (requester, token,
 * tool, arguments digest, policy version) is found or recorded (`approval_pending`, the admins are
 * mailed) → once another admin approved it, the same call retried uses it once and runs; denied:
 * `approval_denied`; lapsed: `approval_expired`. `verified`, a client declaring URL-mode
 * elicitation ({@link VerifiedGate}): the person confirms on this server's page (ADR 0012).
 * Anything else gets `confirmation_required`; nothing runs.
 */
@Injectable()
export class DestructiveToolGate {
  private readonly logger = new Logger(DestructiveToolGate.name);
  private readonly approval: ApprovalGate;
  private readonly verified: VerifiedGate;

  constructor(
    private readonly confirmations: ConfirmationService,
    approvals: ApprovalRequests,
    private readonly policies: ConfirmationPolicyReader,
    private readonly dispatcher: RestDispatcher,
    private readonly metrics: MetricsService,
    verifiedConfirmations: VerifiedConfirmationService,
  ) {
    this.approval = new ApprovalGate(approvals, metrics, dispatcher);
    this.verified = new VerifiedGate(verifiedConfirmations, metrics, dispatcher);
  }

  async check(
    tool: CompiledTool,
    spec: ConfirmationSpec,
    args: Record<string, unknown>,
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    caller: CallerContext,
  ): Promise<GateDecision> {
    const destructive = tool.def.annotations.destructiveHint;
    if (destructive) {
      const missing = await this.missingTarget(spec, args, caller);
      if (missing !== undefined) return missing;
    }
    let policy: ConfirmationPolicy | undefined;
    try {
      policy = await this.policyOf(caller, tool.def.name);
      // A write tool its organisation set no mode for runs at once (the endpoint validates it);
      // `none` is never a destructive tool's (the policies API refuses it), and never honoured.
      if (!destructive) {
        if (policy.mode === 'none') return { kind: 'proceed', confirmationId: null };
        const missing = await this.missingTarget(spec, args, caller);
        if (missing !== undefined) return missing;
      }
      const call: GateCall = { tool, spec, args, ctx, caller, policy };
      if (policy.mode === 'approval') return await this.approval.forCall(call);
      if (policy.mode === 'verified') return await this.verified.check(call, params);
      if (ctx.era === 'legacy' || !declaresFormElicitation(ctx.clientCapabilities)) {
        return refused(
          null,
          'confirmation_required',
          `${tool.def.name} ${destructive ? 'is destructive and runs' : 'runs, as its organisation decided,'} only after the person confirms it, which needs a client on ` +
            'protocol revision 2026-07-28 that declares form elicitation. Nothing was run.',
        );
      }
      const binding = bindingOf(call);
      const state = params.requestState;
      if (state !== undefined) {
        if (typeof state !== 'string')
          throw new McpError(INVALID_PARAMS, 'Invalid params: requestState must be a string');
        const responses = params.inputResponses;
        if (
          responses !== undefined &&
          (responses === null || typeof responses !== 'object' || Array.isArray(responses))
        ) {
          throw new McpError(INVALID_PARAMS, 'Invalid params: inputResponses must be an object');
        }
        const answer = parseAnswer(responses);
        // The ledger's answer to the retry: a child span of the confirmation step, with what the
        // person answered and what the ledger made of it (both from a closed set).
        const outcome: RedeemOutcome = await inSpanAsync(
          SPAN_REDEEM,
          (): Promise<RedeemOutcome> =>
            answer === 'missing'
              ? this.confirmations.inspect(state, binding)
              : this.confirmations.redeem(state, binding, answer),
          { 'mcp.confirmation.answer': answer },
          (redeemed) => ({ 'mcp.confirmation.outcome': redeemed.kind }),
        );
        return await this.afterRedeem(outcome, call);
      }
      return await this.ask(call);
    } catch (err) {
      if (
        err instanceof ConfirmationUnavailableError &&
        policy === undefined &&
        !destructive &&
        isDatabaseUnavailable(err.cause)
      ) {
        // The database is away before a write tool's policy could be read: the answer its own
        // endpoint gives (SERVICE_UNAVAILABLE, retry_after_seconds). Nothing about a confirmation
        // failed (its organisation may have asked for none), and nothing runs either way.
        const { envelope } = mapRestException(err.cause, caller.requestId, {
          unavailable: isDatabaseUnavailable,
        });
        return { kind: 'refused', confirmationId: null, envelope };
      }
      if (err instanceof ConfirmationUnavailableError) {
        this.metrics.recordConfirmation('refused_unavailable');
        // An outage of the database, not a fault of ours: counted and alerted as such.
        this.logger.warn({ err, requestId: caller.requestId }, 'confirmation store unavailable');
        return refused(
          null,
          'confirmation_unavailable',
          'The server could not record the confirmation right now, so it refused the tool. Nothing was run; try again later.',
        );
      }
      throw err;
    }
  }

  /**
   * Whatever the client, a call missing the argument that names its target says that ("id is
   * required"), not that the client cannot confirm: that is the fix the caller needs.
   */
  private async missingTarget(
    spec: ConfirmationSpec,
    args: Record<string, unknown>,
    caller: CallerContext,
  ): Promise<GateDecision | undefined> {
    const lookup = spec.lookup;
    if (lookup === undefined || pathParamsOf(lookup.path).every((p) => args[p] !== undefined))
      return undefined;
    const target = await readTarget(this.dispatcher, lookup, args, caller);
    if ('envelope' in target)
      return { kind: 'refused', confirmationId: null, envelope: target.envelope };
    return undefined;
  }

  private async afterRedeem(outcome: RedeemOutcome, call: GateCall): Promise<GateDecision> {
    // The answer was missing (or not a clear yes/no): ask the same question again.
    if (outcome.kind === 'pending') return this.ask(call);
    return afterRedemption(outcome, this.metrics, {
      askAgain: () => this.ask(call),
      decliner: 'user',
      countDecline: true,
    });
  }

  private async ask(call: GateCall): Promise<GateDecision> {
    const question = await questionOf(this.dispatcher, call);
    if ('kind' in question) return question;
    const asked = await inSpanAsync(SPAN_ASK, () => this.confirmations.ask(question));
    this.metrics.recordConfirmation('asked');
    return {
      kind: 'input_required',
      confirmationId: asked.confirmationId,
      inputRequests: { [CONFIRMATION_INPUT_KEY]: elicitationRequest(question.message) },
      requestState: asked.requestState,
    };
  }

  /**
   * A task's approval request, polled by its requester (`tasks/get`), judged under the policy in
   * force now ({@link ApprovalGate.forTask}).
   */
  async forApprovalTask(
    tool: CompiledTool,
    approvalId: string,
    caller: CallerContext,
  ): Promise<GateDecision> {
    const policy = await this.policyOf(caller, tool.def.name);
    return this.approval.forTask(tool, approvalId, caller, policy);
  }

  /** The tool's policy now; a store that cannot answer refuses the call like the ledger's. */
  private async policyOf(caller: CallerContext, tool: string): Promise<ConfirmationPolicy> {
    try {
      return await this.policies.policyFor(caller.principal.organizationId, tool);
    } catch (err) {
      throw new ConfirmationUnavailableError(err);
    }
  }
}
