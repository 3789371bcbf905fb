import { isJsonObject, sanitizeForPrompt, unreachable } from '@app/common';
import { Injectable, Logger } from '@nestjs/common';
import {
  APPROVAL_REFUSAL_CODES,
  CONFIRMATION_REFUSAL_CODES,
  toEnvelope,
  type ErrorEnvelope,
} from '@app/errors';
import { ApprovalRequests, type ApprovalOutcome, type TaskApprovalOutcome } from '@app/approvals';
import { ConfirmationPolicyReader, type ConfirmationPolicy } from '@app/confirmation-policies';
import type { CallerContext } from '@app/identity';
import {
  CONFIRMATION_INPUT_KEY,
  ConfirmationService,
  ConfirmationUnavailableError,
  elicitationRequest,
  parseAnswer,
  parseUrlAnswer,
  urlElicitationRequest,
  VerifiedConfirmationService,
  type AskInput,
  type OpenQuestion,
  type RedeemOutcome,
  type VerifiedRedeemOutcome,
} from '@app/mcp-confirmations';
import { MetricsService } from '@app/metrics';
import {
  declaresExtension,
  INVALID_PARAMS,
  McpError,
  TASKS_EXTENSION,
  URL_ELICITATION_REQUIRED,
  type McpRequestContext,
} from '@app/mcp-transport';
import { inSpanAsync } from '@app/tracing';
import { envelopeOf } from './mcp-refusals.js';
import { RestDispatcher } from './rest-dispatcher.js';
import { pathParamsOf, pathValuesOf, type CompiledTool } from './tool-catalog.js';
import type { ConfirmationSpec } from './tool-definition.js';

/** The ledger's steps, children of the executor's `mcp.confirmation` span. */
const SPAN_ASK = 'mcp.confirmation.ask';
const SPAN_REDEEM = 'mcp.confirmation.redeem';

export type GateDecision =
  /** Run once: a consumed confirmation (`form`), or a used approval (`approval`: no confirmation id). */
  | { kind: 'proceed'; confirmationId: string | null; approvalId?: string }
  | {
      kind: 'input_required';
      confirmationId: string;
      inputRequests: Record<string, unknown>;
      requestState: string;
    }
  /** `approvalId`: the approval request the refusal is about (its envelope's `approval_id`). */
  | { kind: 'refused'; confirmationId: string | null; envelope: ErrorEnvelope; approvalId?: string }
  /** A JSON-RPC error instead of a result (2025-11-25 `URLElicitationRequiredError`). */
  | { kind: 'rpc_error'; confirmationId: string; error: McpError }
  /**
   * `approval` with a client that declares the tasks extension: the call waits for request
   * `approvalId` as a task (`working`, `message` says who resolves it) instead of a refusal.
   */
  | {
      kind: 'await_approval';
      confirmationId: null;
      approvalId: string;
      message: string;
      expiresAt: Date;
      expirySeconds: number;
    };

/** Form elicitation is declared as `elicitation: {}` (form implied) or `elicitation: { form: {} }`. */
export function declaresFormElicitation(capabilities: Record<string, unknown>): boolean {
  const e = capabilities.elicitation;
  if (!isJsonObject(e)) return false;
  return e.form !== undefined || e.url === undefined;
}

/** URL-mode elicitation is declared as `elicitation: { url: {} }` (with or without `form`). */
export function declaresUrlElicitation(capabilities: Record<string, unknown>): boolean {
  const e = capabilities.elicitation;
  return isJsonObject(e) && e.url !== undefined;
}

/** The one 2025 revision with URL-mode elicitation (`URLElicitationRequiredError`, -32042). */
const URL_MODE_LEGACY_REVISION = '2025-11-25';

/**
 * A destructive tool runs only after the decision its organisation's confirmation policy asks for,
 * once per decision. The policy is read on every call (the replica's cache, current within a
 * second of a change). `form` with a 2026-07-28 client declaring form elicitation: read the target
 * (the question names it; a missing one is the API's 404) → ask (input_required) → the retry
 * redeems the ledger row atomically, under the same policy version → run. The endpoint itself
 * answers NOT_FOUND if the target went away meanwhile. `approval`, any client of either era: read
 * the target → the request bound to this call (requester, token, tool, arguments digest, policy
 * version) is found or recorded (`approval_pending`, the admins are mailed) → once another admin
 * approved it, the same call retried uses it once and runs; denied: `approval_denied`; lapsed:
 * `approval_expired`. `verified`, a client declaring URL-mode elicitation: the person confirms on
 * this server's page (ADR 0012); 2026-07-28 asks with a URL-mode `input_required` and the retry
 * consumes the page's decision by its `requestState`; 2025-11-25 answers
 * `URLElicitationRequiredError` and the same call retried consumes it by its binding. Anything
 * else gets `confirmation_required`; nothing runs.
 */
@Injectable()
export class DestructiveToolGate {
  private readonly logger = new Logger(DestructiveToolGate.name);

  constructor(
    private readonly confirmations: ConfirmationService,
    private readonly approvals: ApprovalRequests,
    private readonly policies: ConfirmationPolicyReader,
    private readonly dispatcher: RestDispatcher,
    private readonly metrics: MetricsService,
    private readonly verifiedConfirmations: VerifiedConfirmationService,
  ) {}

  async check(
    tool: CompiledTool,
    spec: ConfirmationSpec,
    args: Record<string, unknown>,
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    caller: CallerContext,
  ): Promise<GateDecision> {
    if (pathParamsOf(spec.lookup.path).some((p) => args[p] === undefined)) {
      // Whatever the client, a call missing the argument that names its target says that
      // ("id is required"), not that the client cannot confirm: that is the fix the caller needs.
      const target = await this.readTarget(spec, args, caller);
      if ('envelope' in target)
        return { kind: 'refused', confirmationId: null, envelope: target.envelope };
    }
    try {
      const policy = await this.policyOf(caller, tool.def.name);
      const call: GateCall = { tool, spec, args, ctx, caller, policy };
      if (policy.mode === 'approval') return await this.approval(call);
      if (policy.mode === 'verified') return await this.verified(call, params);
      if (ctx.era === 'legacy' || !declaresFormElicitation(ctx.clientCapabilities)) {
        return refused(
          null,
          'confirmation_required',
          `${tool.def.name} is destructive and runs only after the person confirms it, which needs a client on ` +
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

  private async afterRedeem(outcome: RedeemOutcome, call: GateCall): Promise<GateDecision> {
    switch (outcome.kind) {
      case 'tampered':
        this.metrics.recordConfirmation('tampered');
        throw invalidRequestState();
      case 'expired':
        this.metrics.recordConfirmation('expired');
        return this.ask(call);
      case 'superseded':
        // Asked under another version of the policy: that answer decides nothing; ask under this one.
        this.metrics.recordConfirmation('superseded');
        return this.ask(call);
      case 'pending':
        // The answer was missing (or not a clear yes/no): ask the same question again.
        return this.ask(call);
      case 'declined':
        this.metrics.recordConfirmation('declined');
        return declinedBy('user', outcome.confirmationId);
      case 'replayed':
      case 'consumed':
        return this.spent(outcome.kind, outcome.confirmationId);
      default:
        return unreachable(outcome);
    }
  }

  private async ask(call: GateCall): Promise<GateDecision> {
    const question = await this.question(call);
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
   * Reads the target and words the question about it: what the ledger records when it is asked
   * (`form` or `verified` alike), or the API's refusal when the target cannot be read.
   */
  private async question(call: GateCall): Promise<AskInput | GateDecision> {
    const { spec, args, ctx, caller, policy } = call;
    const target = await this.readTarget(spec, args, caller);
    if ('envelope' in target)
      return { kind: 'refused', confirmationId: null, envelope: target.envelope };
    return {
      ...callOf(call),
      targetType: spec.targetType,
      targetId: String(target.record.id ?? args.id),
      message: spec.question(target.record, (v) => sanitizeForPrompt(promptText(v))),
      protocolVersion: ctx.protocolVersion,
      clientName: caller.clientName,
      requestId: caller.requestId,
      policy: { version: policy.version, expirySeconds: policy.expirySeconds },
      caller,
    };
  }

  /**
   * `verified`: the person who authorized the client decides on this server's page, signed in; the
   * client only opens the page and retries. A client that cannot open a URL for the person is
   * refused up front (`confirmation_required`, naming the mode and who can change it).
   */
  private async verified(call: GateCall, params: Record<string, unknown>): Promise<GateDecision> {
    const { tool, ctx, policy } = call;
    const urlCapable =
      declaresUrlElicitation(ctx.clientCapabilities) &&
      (ctx.era === 'modern' || ctx.protocolVersion === URL_MODE_LEGACY_REVISION);
    if (!urlCapable) return refused(null, 'confirmation_required', unusable(tool, policy));
    const binding = bindingOf(call);
    if (ctx.era === 'legacy') {
      // No requestState in 2025: the retry is the same call, found by its binding.
      const found = await inSpanAsync(
        SPAN_REDEEM,
        () => this.verifiedConfirmations.forCall(binding),
        {},
        (o) => ({ 'mcp.confirmation.outcome': o.kind }),
      );
      switch (found.kind) {
        case 'consumed':
          return this.spent('consumed', found.confirmationId);
        case 'declined':
          return refused(
            found.confirmationId,
            'USER_DECLINED',
            'The person declined on the confirmation page. Nothing was changed; calling again asks again.',
          );
        case 'pending':
          return urlRequired(found);
        case 'replayed':
          this.metrics.recordConfirmation('replayed');
          return refused(
            found.confirmationId,
            'confirmation_replayed',
            'This call already ran with the confirmation the person gave on the page; each confirmation runs one call once. Nothing was run again.',
          );
        case 'none': {
          const asked = await this.askVerified(call);
          return 'kind' in asked ? asked : urlRequired(asked);
        }
        default:
          return unreachable(found);
      }
    }
    const state = params.requestState;
    if (state === undefined) {
      const asked = await this.askVerified(call);
      return 'kind' in asked ? asked : inputRequiredUrl(asked, asked.requestState);
    }
    if (typeof state !== 'string')
      throw new McpError(INVALID_PARAMS, 'Invalid params: requestState must be a string');
    const declined = parseUrlAnswer(params.inputResponses) === 'decline';
    const outcome: VerifiedRedeemOutcome = await inSpanAsync(
      SPAN_REDEEM,
      () => this.verifiedConfirmations.redeem(state, binding, declined),
      { 'mcp.confirmation.answer': declined ? 'decline' : 'open' },
      (redeemed) => ({ 'mcp.confirmation.outcome': redeemed.kind }),
    );
    switch (outcome.kind) {
      case 'tampered':
        this.metrics.recordConfirmation('tampered');
        throw invalidRequestState();
      case 'expired':
      case 'superseded': {
        this.metrics.recordConfirmation(outcome.kind);
        const asked = await this.askVerified(call);
        return 'kind' in asked ? asked : inputRequiredUrl(asked, asked.requestState);
      }
      case 'pending':
        // Not decided on the page yet: the same question, the same page, the same state.
        return inputRequiredUrl(outcome, state);
      case 'declined':
        if (declined) this.metrics.recordConfirmation('declined');
        return declinedBy('person', outcome.confirmationId);
      case 'replayed':
      case 'consumed':
        return this.spent(outcome.kind, outcome.confirmationId);
      default:
        return unreachable(outcome);
    }
  }

  /** Reads the target, records a `verified` question; the question to send, or the refusal. */
  private async askVerified(
    call: GateCall,
  ): Promise<(OpenQuestion & { requestState: string }) | GateDecision> {
    const question = await this.question(call);
    if ('kind' in question) return question;
    const asked = await inSpanAsync(SPAN_ASK, () => this.verifiedConfirmations.ask(question));
    this.metrics.recordConfirmation('asked');
    return {
      confirmationId: asked.confirmationId,
      message: question.message,
      url: asked.url,
      requestState: asked.requestState,
    };
  }

  /**
   * Four-eyes: no elicitation, so any client of either era. The question is asked of the admins,
   * not the person: the answer says so, with the request's id, and the retry learns the decision.
   */
  private async approval(call: GateCall): Promise<GateDecision> {
    const question = await this.question(call);
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
   * A task's approval request, polled by its requester (`tasks/get`): judged under the policy in
   * force now, as the same call's retry would be. `proceed` means this caller used the approval
   * (once, whatever the number of replicas and concurrent polls); `await_approval` that it still
   * waits; `approval_denied` / `approval_expired` end the task; a policy that changed since (another
   * version, or no longer `approval`) makes the request count for nothing (`approval_expired`).
   */
  async forApprovalTask(
    tool: CompiledTool,
    approvalId: string,
    caller: CallerContext,
  ): Promise<GateDecision> {
    const policy = await this.policyOf(caller, tool.def.name);
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

  /** The tool's policy now; a store that cannot answer refuses the call like the ledger's. */
  private async policyOf(caller: CallerContext, tool: string): Promise<ConfirmationPolicy> {
    try {
      return await this.policies.policyFor(caller.principal.organizationId, tool);
    } catch (err) {
      throw new ConfirmationUnavailableError(err);
    }
  }

  /**
   * A confirmation the person accepted, counted: used now by this call (`consumed`, it runs once),
   * or already by another (`replayed`, nothing runs).
   */
  private spent(kind: 'consumed' | 'replayed', confirmationId: string): GateDecision {
    this.metrics.recordConfirmation(kind);
    if (kind === 'consumed') return { kind: 'proceed', confirmationId };
    return refused(
      confirmationId,
      'confirmation_replayed',
      'This confirmation was already used; each one runs one call once. Call the tool again to be asked again. Nothing was run.',
    );
  }

  /** Reads the record through its REST endpoint (so 404 and cross-tenant rules are the API's). */
  private async readTarget(
    spec: ConfirmationSpec,
    args: Record<string, unknown>,
    caller: CallerContext,
  ): Promise<{ record: Record<string, unknown> } | { envelope: ErrorEnvelope }> {
    const params = pathValuesOf(pathParamsOf(spec.lookup.path), args);
    const res = await this.dispatcher.dispatch(caller, spec.lookup, { params });
    if (res.status === 200 && isJsonObject(res.body)) return { record: res.body };
    // The database could not answer in time: no question can be asked, so nothing may run.
    if (res.status === 503) throw new ConfirmationUnavailableError(envelopeOf(res.body));
    const envelope = res.status < 500 ? envelopeOf(res.body) : undefined;
    if (envelope !== undefined) return { envelope };
    throw new Error(`Looking up ${spec.lookup.path} answered ${res.status}`);
  }
}

/** One destructive call as the gate judges it, under the confirmation policy read for it. */
interface GateCall {
  tool: CompiledTool;
  spec: ConfirmationSpec;
  args: Record<string, unknown>;
  ctx: McpRequestContext;
  caller: CallerContext;
  policy: ConfirmationPolicy;
}

/** Whose call it is (organisation, token, person) and which (tool, arguments). */
function callOf({ tool, args, caller }: GateCall) {
  return {
    organizationId: caller.principal.organizationId,
    tokenId: caller.principal.tokenId,
    userId: caller.principal.userId,
    tool: tool.def.name,
    args,
  };
}

/** Who presents an answer, for which call, under which policy: what a ledger row is bound to. */
function bindingOf(call: GateCall) {
  return { ...callOf(call), policyVersion: call.policy.version, caller: call.caller };
}

/** A `requestState` this call did not issue, or one altered on the way: a protocol error. */
function invalidRequestState(): McpError {
  return new McpError(INVALID_PARAMS, 'Invalid params: requestState is not valid for this call', {
    reason: 'invalid_request_state',
  });
}

/** The person said no (`user`: in the client's form; `person`: on the server's page). */
function declinedBy(who: 'user' | 'person', confirmationId: string): GateDecision {
  return refused(
    confirmationId,
    'USER_DECLINED',
    `The ${who} declined the confirmation. Nothing was changed.`,
  );
}

function refused(
  confirmationId: string | null,
  code: (typeof CONFIRMATION_REFUSAL_CODES)[number] | 'confirmation_unavailable',
  message: string,
): GateDecision {
  return { kind: 'refused', confirmationId, envelope: toEnvelope(code, message) };
}

function approvalRefused(
  code: (typeof APPROVAL_REFUSAL_CODES)[number],
  message: string,
  approvalId: string,
): GateDecision {
  return {
    kind: 'refused',
    confirmationId: null,
    envelope: toEnvelope(code, message, { approval_id: approvalId }),
    approvalId,
  };
}

/** Why a `verified` policy refuses a client that cannot open a URL for its person (who can change it). */
function unusable(tool: CompiledTool, policy: ConfirmationPolicy): string {
  const needs = 'the person who authorized this client confirms it on this server’s own page';
  return (
    `${tool.def.name} is destructive and the organisation’s confirmation policy says it runs only after ` +
    `${needs} (mode "${policy.mode}"). That needs a client that declares URL-mode elicitation ` +
    '(elicitation.url) on protocol revision 2026-07-28 or 2025-11-25, and this one does not. ' +
    'Nothing was run. An organisation admin can change the policy.'
  );
}

/** What the person reads in the client before opening the page: the question, and where to answer. */
function urlPrompt(question: OpenQuestion): string {
  return `${question.message} Confirm or decline on the server’s page, signed in as yourself.`;
}

/** 2026-07-28: the URL-mode question inside `input_required`, with the state its retry echoes. */
function inputRequiredUrl(question: OpenQuestion, requestState: string): GateDecision {
  return {
    kind: 'input_required',
    confirmationId: question.confirmationId,
    inputRequests: {
      [CONFIRMATION_INPUT_KEY]: urlElicitationRequest(urlPrompt(question), question.url),
    },
    requestState,
  };
}

/** 2025-11-25: `URLElicitationRequiredError` (-32042); the client opens the page, then retries. */
function urlRequired(question: OpenQuestion): GateDecision {
  return {
    kind: 'rpc_error',
    confirmationId: question.confirmationId,
    error: new McpError(
      URL_ELICITATION_REQUIRED,
      'This call runs only after the person confirms it on the server’s page; open the URL, then call the tool again.',
      {
        elicitations: [
          {
            mode: 'url',
            elicitationId: question.confirmationId,
            url: question.url,
            message: urlPrompt(question),
          },
        ],
      },
    ),
  };
}

/** A record field as question text: strings as they are, other JSON values as JSON, none as ''. */
function promptText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
