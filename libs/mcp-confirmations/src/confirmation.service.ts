import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { argumentsDigest, unreachable } from '@app/common';
import type { CallerContext } from '@app/identity';
import type { Listed } from '@app/rest-contract';
import { ConfirmationEvents, type ChangeRecorder } from './confirmation-events.js';
import type { ConfirmationFilter } from './confirmation-list.query.js';
import type { ConfirmationBinding } from './confirmation.binding.js';
import { ConfirmationLedger } from './confirmation.ledger.js';
import type { ConfirmationMode, McpConfirmation } from './mcp-confirmation.js';
import { ConfirmationUnavailableError } from './confirmation-unavailable.error.js';
import { RequestStateCodec, type RequestStateClaims } from './request-state.codec.js';

export interface AskInput {
  organizationId: string;
  tokenId: string;
  userId: string;
  tool: string;
  /** The tool call's `arguments`, exactly as received. */
  args: unknown;
  /** The record the tool acts on, e.g. `portal_user` + its id. */
  targetType: string;
  targetId: string;
  /** The message shown to the person (record text already passed through sanitizeForPrompt). */
  message: string;
  protocolVersion: string;
  clientName: string | null | undefined;
  requestId: string;
  /** The tool's confirmation policy the question is asked under: its version, and how long it stays open. */
  policy: { version: number; expirySeconds: number };
  /** Who asks (the token's person, through their client): the actor of `confirmation.requested`. */
  caller: CallerContext;
}

export interface AskResult {
  confirmationId: string;
  requestState: string;
  expiresAt: Date;
}

/** Who presents a `requestState`, and for which call: from the authenticated request, never the state. */
export interface RedeemBinding {
  organizationId: string;
  tokenId: string;
  userId: string;
  tool: string;
  args: unknown;
  /** The version of the tool's confirmation policy now: a question asked under another is superseded. */
  policyVersion: number;
  /** The call presenting it: the actor of the audit events its changes of the ledger write. */
  caller: CallerContext;
}

/**
 * Why a `requestState` was refused before anything ran (the executor answers JSON-RPC -32602):
 * not ours (`malformed`, `bad_mac`), or ours but presented by another organisation, token or person,
 * for another tool or other arguments, or bound differently in the ledger than in its claims.
 */
export type TamperReason =
  | 'malformed'
  | 'bad_mac'
  | 'other_organization'
  | 'other_token'
  | 'other_user'
  | 'other_tool'
  | 'other_arguments'
  | 'ledger_mismatch';

/**
 * - `consumed`: this caller won the confirmation; run the tool once.
 * - `declined`: the person declined or cancelled; nothing runs (`USER_DECLINED`).
 * - `pending`: still waiting for an answer (only from `inspect`); ask again.
 * - `replayed`: already consumed or declined; nothing runs (`confirmation_replayed`).
 * - `expired`: lapsed, whatever the answer; ask again.
 * - `tampered`: refused before touching the ledger; nothing runs (JSON-RPC -32602).
 * - `superseded`: asked under another version of the tool's policy than the one in force now; the
 *   answer is not used (nothing runs) and the caller asks under the current policy.
 * One union for both `redeem` and `inspect`, so one exhaustive switch handles either.
 */
export type RedeemOutcome =
  | { kind: 'consumed'; confirmationId: string }
  | { kind: 'declined'; confirmationId: string }
  | { kind: 'pending'; confirmationId: string }
  | { kind: 'replayed'; confirmationId: string }
  | { kind: 'expired'; confirmationId: string }
  | { kind: 'superseded'; confirmationId: string }
  | { kind: 'tampered'; reason: TamperReason };

/** What `redeem` can answer: everything but `pending`. */
export type RedemptionOutcome = Exclude<RedeemOutcome, { kind: 'pending' }>;

/** What `inspect` can answer: it never consumes or declines. */
export type InspectOutcome = Exclude<RedeemOutcome, { kind: 'consumed' | 'declined' }>;

/** What {@link openRequestState} found: an answer already, or an open question to decide. */
export type Opened =
  | { settled: Extract<RedeemOutcome, { kind: 'tampered' | 'superseded' | 'expired' }> }
  | {
      settled?: undefined;
      confirmationId: string;
      bound: ConfirmationBinding;
      record: ChangeRecorder;
    };

export type Checked =
  | { tampered: Extract<RedeemOutcome, { kind: 'tampered' | 'superseded' }> }
  | {
      tampered?: undefined;
      confirmationId: string;
      bound: ConfirmationBinding;
      expiresAtUnix: number;
    };

/**
 * Confirmation of destructive MCP tools, and the one door into the ledger: records the question,
 * issues an integrity-protected `requestState`, redeems the answer exactly once across replicas,
 * links a consumed confirmation to the call it authorized, and answers the admin reads. Free of
 * logging and metrics (the executor records them). A ledger failure while asking or redeeming
 * becomes ConfirmationUnavailableError (the tool call's answer); the link and the reads let
 * database errors through unchanged, for the history writer and the REST error filter to judge.
 */
@Injectable()
export class ConfirmationService {
  constructor(
    private readonly ledger: ConfirmationLedger,
    private readonly codec: RequestStateCodec,
    private readonly events: ConfirmationEvents,
  ) {}

  /**
   * Records a pending confirmation (audited `confirmation.requested`) and returns the
   * `requestState` that references it.
   */
  ask(input: AskInput): Promise<AskResult> {
    return askQuestion(this.ledger, this.codec, input, 'form', this.events.by(input.caller));
  }

  /**
   * Redeems the person's answer (as read by parseAnswer; on `missing` call {@link inspect}).
   * The MAC and the binding are checked before the ledger is touched; then one conditional
   * UPDATE decides the single winner across replicas; the winner's audit events (`confirmed` and
   * `executed`, `declined`, or `expired`) commit with it.
   */
  async redeem(
    requestState: unknown,
    binding: RedeemBinding,
    answer: 'accept' | 'decline',
  ): Promise<RedemptionOutcome> {
    const opened = await this.open(requestState, binding);
    if (opened.settled !== undefined) return opened.settled;
    const { confirmationId, bound, record } = opened;

    const transition = await unlessUnavailable(() =>
      answer === 'accept'
        ? this.ledger.consume(confirmationId, bound, record)
        : this.ledger.decline(confirmationId, bound, record),
    );
    switch (transition.outcome) {
      case 'consumed':
        return { kind: 'consumed', confirmationId };
      case 'declined':
        return { kind: 'declined', confirmationId };
      case 'replayed':
        return { kind: 'replayed', confirmationId };
      case 'pending': // not returned by consume/decline; never let it through
      case 'expired':
      case 'missing': // a row that no longer exists cannot be redeemed: ask again
        return { kind: 'expired', confirmationId };
      case 'mismatch':
        return { kind: 'tampered', reason: 'ledger_mismatch' };
      default:
        return unreachable(transition);
    }
  }

  /**
   * Where a presented `requestState` stands when the answer is missing: `pending` (ask the same
   * question again), `replayed`, `expired` or `tampered`. Checks exactly what `redeem` checks, so a
   * tampered state is refused whether or not an answer came with it. Changes no decision.
   */
  async inspect(requestState: unknown, binding: RedeemBinding): Promise<InspectOutcome> {
    const opened = await this.open(requestState, binding);
    if (opened.settled !== undefined) return opened.settled;
    const { confirmationId, bound, record } = opened;

    const found = await unlessUnavailable(() => this.ledger.inspect(confirmationId, bound, record));
    switch (found.outcome) {
      case 'pending':
        return { kind: 'pending', confirmationId };
      case 'replayed':
        return { kind: 'replayed', confirmationId };
      case 'expired':
      case 'missing':
        return { kind: 'expired', confirmationId };
      case 'mismatch':
        return { kind: 'tampered', reason: 'ledger_mismatch' };
      default:
        return unreachable(found);
    }
  }

  /**
   * Points a consumed confirmation at the tool call it authorized, in `tx` (the call's history
   * row's transaction: both commit or neither). False when no consumed row has that id.
   */
  attachToolCall(confirmationId: string, toolCallId: string, tx: EntityManager): Promise<boolean> {
    return this.ledger.attachToolCall(confirmationId, toolCallId, tx);
  }

  /** One confirmation of the organisation; null when missing or another organisation's. */
  findById(organizationId: string, id: string): Promise<McpConfirmation | null> {
    return this.ledger.findById(organizationId, id);
  }

  /** The organisation's confirmations, newest first, keyset paged. */
  list(filter: ConfirmationFilter): Promise<Listed<McpConfirmation>[]> {
    return this.ledger.list(filter);
  }

  private open(requestState: unknown, binding: RedeemBinding): Promise<Opened> {
    return openRequestState(this.ledger, this.codec, this.events, requestState, binding);
  }
}

/**
 * Records a pending question in `mode` (with its `confirmation.requested` event, through
 * `record`) and signs the `requestState` that references it. The one way both doors (the form's
 * and the `verified` page's) ask, so their rows, events and states are alike.
 */
export async function askQuestion(
  ledger: ConfirmationLedger,
  codec: RequestStateCodec,
  input: AskInput,
  mode: ConfirmationMode,
  record: ChangeRecorder,
): Promise<AskResult> {
  const digest = argumentsDigest(input.args);
  const confirmation = await unlessUnavailable(() =>
    ledger.create(
      {
        organizationId: input.organizationId,
        tokenId: input.tokenId,
        userId: input.userId,
        tool: input.tool,
        argumentsDigest: digest,
        targetType: input.targetType,
        targetId: input.targetId,
        message: input.message,
        protocolVersion: input.protocolVersion,
        clientName: input.clientName ?? null,
        requestId: input.requestId,
        ttlSeconds: input.policy.expirySeconds,
        mode,
        policyVersion: input.policy.version,
      },
      record,
    ),
  );
  const requestState = codec.sign({
    confirmationId: confirmation.id,
    organizationId: confirmation.organizationId,
    tokenId: confirmation.tokenId,
    userId: confirmation.userId,
    tool: confirmation.tool,
    argumentsDigest: confirmation.argumentsDigest,
    // Rounded up: the state never lapses before its row (the database's clock decides that).
    expiresAtUnix: Math.ceil(confirmation.expiresAt.getTime() / 1000),
    policyVersion: input.policy.version,
  });
  return { confirmationId: confirmation.id, requestState, expiresAt: confirmation.expiresAt };
}

/** A ledger failure while asking or redeeming is the tool call's ConfirmationUnavailableError. */
export async function unlessUnavailable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw new ConfirmationUnavailableError(err);
  }
}

/** Lapsed by a state's own authenticated claims (no I/O). */
export function lapsed(expiresAtUnix: number): boolean {
  return expiresAtUnix * 1000 <= Date.now();
}

/**
 * Lapsed: refusing it needs no state change. Closing a row still pending (and its one
 * `confirmation.expired` event, written by whichever caller closes it) is bookkeeping only, so a
 * store failure here is not the caller's problem.
 */
export async function expireQuietly(
  ledger: ConfirmationLedger,
  confirmationId: string,
  bound: ConfirmationBinding,
  record: ChangeRecorder,
): Promise<{ kind: 'expired'; confirmationId: string }> {
  await ledger.expire(confirmationId, bound, record).catch(() => false);
  return { kind: 'expired', confirmationId };
}

/**
 * A presented `requestState`, before the ledger decides anything: `settled` when it is refused
 * (tampered or superseded, no I/O) or has lapsed (its row closed quietly: `expired`); otherwise
 * the question it names, bound as its claims say, and the recorder of the caller's audit events.
 * The one opening of every redemption (the form's `redeem` and `inspect`, the verified retry).
 */
export async function openRequestState(
  ledger: ConfirmationLedger,
  codec: RequestStateCodec,
  events: ConfirmationEvents,
  requestState: unknown,
  binding: RedeemBinding,
): Promise<Opened> {
  const checked = checkRequestState(codec, requestState, binding);
  if (checked.tampered !== undefined) return { settled: checked.tampered };
  const { confirmationId, bound } = checked;
  const record = events.by(binding.caller);
  if (lapsed(checked.expiresAtUnix)) {
    return { settled: await expireQuietly(ledger, confirmationId, bound, record) };
  }
  return { confirmationId, bound, record };
}

/**
 * A presented `requestState` against the authenticated call: MAC, then binding, then the policy
 * version in force (no I/O). Shared by the form and the `verified` flows, so both refuse exactly
 * the same states.
 */
export function checkRequestState(
  codec: RequestStateCodec,
  requestState: unknown,
  binding: RedeemBinding,
): Checked {
  const verdict = codec.verify(requestState);
  if (!verdict.ok) return { tampered: { kind: 'tampered', reason: verdict.reason } };
  const claims = verdict.claims;
  const mismatch = bindingMismatch(claims, binding);
  if (mismatch !== undefined) return { tampered: { kind: 'tampered', reason: mismatch } };
  if (claims.policyVersion !== binding.policyVersion) {
    return { tampered: { kind: 'superseded', confirmationId: claims.confirmationId } };
  }
  return {
    confirmationId: claims.confirmationId,
    bound: {
      organizationId: claims.organizationId,
      tokenId: claims.tokenId,
      userId: claims.userId,
      tool: claims.tool,
      argumentsDigest: claims.argumentsDigest,
    },
    expiresAtUnix: claims.expiresAtUnix,
  };
}

function bindingMismatch(
  claims: RequestStateClaims,
  binding: RedeemBinding,
): TamperReason | undefined {
  if (claims.organizationId !== binding.organizationId) return 'other_organization';
  if (claims.tokenId !== binding.tokenId) return 'other_token';
  if (claims.userId !== binding.userId) return 'other_user';
  if (claims.tool !== binding.tool) return 'other_tool';
  if (claims.argumentsDigest !== argumentsDigest(binding.args)) return 'other_arguments';
  return undefined;
}
