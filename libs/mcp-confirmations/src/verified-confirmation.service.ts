import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { argumentsDigest } from '@app/common';
import { ConfirmationEvents } from './confirmation-events.js';
import { isBoundTo, type ConfirmationBinding } from './confirmation.binding.js';
import { ConfirmationLedger } from './confirmation.ledger.js';
import {
  askQuestion,
  expireQuietly,
  openRequestState,
  unlessUnavailable,
  type AskInput,
  type AskResult,
  type RedeemBinding,
  type TamperReason,
} from './confirmation.service.js';
import type { McpConfirmation } from './mcp-confirmation.js';
import { RequestStateCodec } from './request-state.codec.js';

/** Where the page of a `verified` confirmation lives on this server: `/confirm/<id>`. */
export const VERIFIED_CONFIRMATION_PATH = '/confirm';

/** A `verified` question: the ledger row, its state for a 2026-07-28 retry, and the page's URL. */
export interface VerifiedAskResult extends AskResult {
  url: string;
}

/** An open question to ask again as it was (same row, same page). */
export interface OpenQuestion {
  confirmationId: string;
  message: string;
  url: string;
}

/**
 * What a 2026-07-28 retry of a `verified` question found:
 * - `consumed`: the person confirmed on the page and this retry won it; run once;
 * - `declined`: the person declined (on the page, or the client on their behalf);
 * - `pending`: not decided yet; ask the same question again (same page, same state);
 * - `replayed`: already used; `expired`: lapsed (ask anew); `superseded`: asked under another
 *   policy version (ask under this one); `tampered`: not this call's state (JSON-RPC -32602).
 */
export type VerifiedRedeemOutcome =
  | {
      kind: 'consumed' | 'declined' | 'replayed' | 'expired' | 'superseded';
      confirmationId: string;
    }
  | ({ kind: 'pending' } & OpenQuestion)
  | { kind: 'tampered'; reason: TamperReason };

/**
 * What a 2025-11-25 call found for its binding (it carries no state: the retry is the same call):
 * a confirmed decision it won, a decline on the page not told yet, an open question to ask again,
 * or nothing (ask).
 */
export type VerifiedCallOutcome =
  | { kind: 'consumed' | 'declined' | 'replayed'; confirmationId: string }
  | ({ kind: 'pending' } & OpenQuestion)
  | { kind: 'none' };

/**
 * How long after a 2025-11-25 call used its confirmation the same call counts as a duplicate of it
 * (`confirmation_replayed`) rather than a new call to ask about (as for approvals, ADR 0011).
 */
export const VERIFIED_REPLAY_WINDOW_SECONDS = 60;

/** A `verified` row as the page sees it, with whether it has lapsed by the database's clock. */
export type PageConfirmation = McpConfirmation & { lapsed: boolean };

/**
 * Confirmation on this server's own page (policy `verified`, ADR 0012), through the same ledger as
 * the form: asking records a `verified` row; only the page records the person's decision (the
 * row's own person, signed in); the retry consumes it once by the ledger's conditional UPDATE.
 * Ledger failures while asking or redeeming become ConfirmationUnavailableError, as for the form.
 */
@Injectable()
export class VerifiedConfirmationService {
  constructor(
    private readonly ledger: ConfirmationLedger,
    private readonly codec: RequestStateCodec,
    private readonly events: ConfirmationEvents,
    /**
     * The server's public base URL (no trailing slash), read when a URL is made: the port is
     * known only once the server listens.
     */
    private readonly baseUrl: () => string,
  ) {}

  /** The page of one confirmation: an opaque id on this origin, no secret in it. */
  pageUrl(confirmationId: string): string {
    return `${this.baseUrl()}${VERIFIED_CONFIRMATION_PATH}/${confirmationId}`;
  }

  /** Records a `verified` question (audited `confirmation.requested`) and names its page. */
  async ask(input: AskInput): Promise<VerifiedAskResult> {
    const asked = await askQuestion(
      this.ledger,
      this.codec,
      input,
      'verified',
      this.events.by(input.caller),
    );
    return { ...asked, url: this.pageUrl(asked.confirmationId) };
  }

  /**
   * A 2026-07-28 retry: its `requestState` is checked like the form's (MAC, binding, policy
   * version), then the decision the page recorded is consumed once. `declined`: the client's own
   * answer was decline or cancel (a URL-mode accept only says the person agreed to open the page,
   * so it decides nothing by itself). Each change of the row commits with its audit event
   * (`declined`, `executed` or `expired`), the caller as actor.
   */
  async redeem(
    requestState: unknown,
    binding: RedeemBinding,
    clientDeclined: boolean,
  ): Promise<VerifiedRedeemOutcome> {
    const opened = await openRequestState(
      this.ledger,
      this.codec,
      this.events,
      requestState,
      binding,
    );
    if (opened.settled !== undefined) return opened.settled;
    const { confirmationId, bound, record } = opened;
    if (clientDeclined) {
      const declined = await unlessUnavailable(() =>
        this.ledger.declineVerified(confirmationId, bound, record),
      );
      if (declined) return { kind: 'declined', confirmationId };
    }
    const used = await unlessUnavailable(() =>
      this.ledger.consumeVerified(confirmationId, bound, binding.policyVersion, record),
    );
    if (used.won) return { kind: 'consumed', confirmationId };
    const row = used.found;
    if (row === null) return { kind: 'expired', confirmationId };
    if (!isBoundTo(row, bound)) return { kind: 'tampered', reason: 'ledger_mismatch' };
    switch (row.status) {
      case 'consumed':
        return { kind: 'replayed', confirmationId };
      case 'declined':
        return { kind: 'declined', confirmationId };
      case 'expired':
        return { kind: 'expired', confirmationId };
      case 'pending':
        if (row.lapsed) return expireQuietly(this.ledger, confirmationId, bound, record);
        if (row.policyVersion !== binding.policyVersion)
          return { kind: 'superseded', confirmationId };
        // Not decided on the page yet (a verified, unlapsed row would have been consumed above).
        return row.verifiedAt === null
          ? { kind: 'pending', ...this.question(row) }
          : { kind: 'expired', confirmationId };
      default:
        return { kind: 'expired', confirmationId };
    }
  }

  /**
   * A 2025-11-25 call (no state): the page's decision for this exact call, found by its binding.
   * Consumed once across concurrent retries; a decline is told once; an open question is asked
   * again with the same page; the same call just after one ran is `replayed`; otherwise nothing
   * (the caller asks, after closing the binding's lapsed questions: `confirmation.expired`). A
   * decision used here is audited `confirmation.executed`, each event with its change.
   */
  async forCall(binding: RedeemBinding): Promise<VerifiedCallOutcome> {
    const bound: ConfirmationBinding = {
      organizationId: binding.organizationId,
      tokenId: binding.tokenId,
      userId: binding.userId,
      tool: binding.tool,
      argumentsDigest: argumentsDigest(binding.args),
    };
    const record = this.events.by(binding.caller);
    return unlessUnavailable(async (): Promise<VerifiedCallOutcome> => {
      const used = await this.ledger.consumeVerifiedByBinding(bound, binding.policyVersion, record);
      if (used !== undefined) return { kind: 'consumed', confirmationId: used.id };
      const declined = await this.ledger.reportDeclinedByBinding(bound);
      if (declined !== undefined) return { kind: 'declined', confirmationId: declined.id };
      const open = await this.ledger.openVerifiedByBinding(bound, binding.policyVersion);
      if (open !== undefined) return { kind: 'pending', ...this.question(open) };
      const ran = await this.ledger.recentlyConsumedByBinding(
        bound,
        VERIFIED_REPLAY_WINDOW_SECONDS,
      );
      if (ran !== undefined) return { kind: 'replayed', confirmationId: ran.id };
      // About to ask anew: questions of this call that lapsed meanwhile are closed first.
      await this.ledger.expireLapsedVerifiedByBinding(bound, record);
      return { kind: 'none' };
    });
  }

  /** The row the page shows (any organisation's: the page checks the person), or null. */
  forPage(confirmationId: string): Promise<PageConfirmation | null> {
    return this.ledger.findVerified(confirmationId);
  }

  /**
   * Records the person's decision on the page, in `tx` (with its audit event). Undefined when
   * nothing changed: not this person's, not pending, already decided, lapsed or of another
   * policy version (read the row again to say which).
   */
  decideOnPage(
    confirmationId: string,
    userId: string,
    policyVersion: number,
    decision: 'confirm' | 'decline',
    tx: EntityManager,
  ): Promise<McpConfirmation | undefined> {
    return this.ledger.decideOnPage(confirmationId, userId, policyVersion, decision, tx);
  }

  private question(row: McpConfirmation): OpenQuestion {
    return { confirmationId: row.id, message: row.message, url: this.pageUrl(row.id) };
  }
}
