import {
  APPROVAL_REFUSAL_CODES,
  CONFIRMATION_REFUSAL_CODES,
  toEnvelope,
  type ErrorEnvelope,
} from '@app/errors';
import { unreachable } from '@app/common';
import type { ConfirmationPolicy } from '@app/confirmation-policies';
import type { CallerContext } from '@app/identity';
import type { RedemptionOutcome } from '@app/mcp-confirmations';
import type { MetricsService } from '@app/metrics';
import { INVALID_PARAMS, McpError, type McpRequestContext } from '@app/mcp-transport';
import type { CompiledTool } from './tool-catalog.js';
import type { ConfirmationSpec } from './tool-definition.js';

/*
 * What the destructive-tool gate judges and what it answers, shared by its three paths (`form`,
 * `verified`, `approval`): one call under its policy ({@link GateCall}), whose call it is and what
 * a ledger row is bound to, the decision's kinds ({@link GateDecision}) and the refusals each path
 * words the same way.
 */

/** The ledger's steps, children of the executor's `mcp.confirmation` span. */
export const SPAN_ASK = 'mcp.confirmation.ask';
export const SPAN_REDEEM = 'mcp.confirmation.redeem';

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

/** One destructive call as the gate judges it, under the confirmation policy read for it. */
export interface GateCall {
  tool: CompiledTool;
  spec: ConfirmationSpec;
  args: Record<string, unknown>;
  ctx: McpRequestContext;
  caller: CallerContext;
  policy: ConfirmationPolicy;
}

/** Whose call it is (organisation, token, person) and which (tool, arguments). */
export function callOf({ tool, args, caller }: GateCall) {
  return {
    organizationId: caller.principal.organizationId,
    tokenId: caller.principal.tokenId,
    userId: caller.principal.userId,
    tool: tool.def.name,
    args,
  };
}

/** Who presents an answer, for which call, under which policy: what a ledger row is bound to. */
export function bindingOf(call: GateCall) {
  return { ...callOf(call), policyVersion: call.policy.version, caller: call.caller };
}

/**
 * What a redeemed answer decides, the same on the `form` and `verified` paths (what a `pending` one
 * means differs: each path handles it before this): a `requestState` not this call's is a protocol
 * error; a lapsed or superseded question decides nothing and `askAgain` asks this call's question
 * under the policy in force; a decline refuses, naming `decliner`; a used confirmation runs once
 * ({@link spent}). `countDecline`: whether this answer is the decline to count (a path whose
 * decline was made, and counted, elsewhere says false).
 */
export async function afterRedemption(
  outcome: RedemptionOutcome,
  metrics: MetricsService,
  on: {
    askAgain: () => Promise<GateDecision>;
    decliner: 'user' | 'person';
    countDecline: boolean;
  },
): Promise<GateDecision> {
  switch (outcome.kind) {
    case 'tampered':
      metrics.recordConfirmation('tampered');
      throw invalidRequestState();
    case 'expired':
    case 'superseded':
      metrics.recordConfirmation(outcome.kind);
      return on.askAgain();
    case 'declined':
      if (on.countDecline) metrics.recordConfirmation('declined');
      return declinedBy(on.decliner, outcome.confirmationId);
    case 'replayed':
    case 'consumed':
      return spent(metrics, outcome.kind, outcome.confirmationId);
    default:
      return unreachable(outcome);
  }
}

/** A `requestState` this call did not issue, or one altered on the way: a protocol error. */
export function invalidRequestState(): McpError {
  return new McpError(INVALID_PARAMS, 'Invalid params: requestState is not valid for this call', {
    reason: 'invalid_request_state',
  });
}

/**
 * A confirmation the person accepted, counted: used now by this call (`consumed`, it runs once),
 * or already by another (`replayed`, nothing runs).
 */
export function spent(
  metrics: MetricsService,
  kind: 'consumed' | 'replayed',
  confirmationId: string,
): GateDecision {
  metrics.recordConfirmation(kind);
  if (kind === 'consumed') return { kind: 'proceed', confirmationId };
  return refused(
    confirmationId,
    'confirmation_replayed',
    'This confirmation was already used; each one runs one call once. Call the tool again to be asked again. Nothing was run.',
  );
}

/** The person said no (`user`: in the client's form; `person`: on the server's page). */
export function declinedBy(who: 'user' | 'person', confirmationId: string): GateDecision {
  return refused(
    confirmationId,
    'USER_DECLINED',
    `The ${who} declined the confirmation. Nothing was changed.`,
  );
}

export function refused(
  confirmationId: string | null,
  code: (typeof CONFIRMATION_REFUSAL_CODES)[number] | 'confirmation_unavailable',
  message: string,
): GateDecision {
  return { kind: 'refused', confirmationId, envelope: toEnvelope(code, message) };
}

export function approvalRefused(
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
