import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { unreachable } from '@app/common';
import { listedAs, type Listed } from '@app/rest-contract';
import {
  BOUND,
  BOUND_FROM_1,
  bindingParams,
  isBoundTo,
  type ConfirmationBinding,
} from './confirmation.binding.js';
import type { ChangeRecorder } from './confirmation-events.js';
import { confirmationsListQuery, type ConfirmationFilter } from './confirmation-list.query.js';
import { CONFIRMATION_COLUMNS, toConfirmation, type ConfirmationRow } from './confirmation.row.js';
import { ConfirmationStatements, UUID } from './confirmation.statements.js';
import type {
  LedgerInspection,
  LedgerTransition,
  NewConfirmation,
  VerifiedLookup,
} from './confirmation-ledger.types.js';
import type { McpConfirmation } from './mcp-confirmation.js';

/** A row with whether it has lapsed by the database's clock. */
interface SettleRow extends ConfirmationRow {
  lapsed: boolean;
}

/**
 * All SQL about confirmations. Every state change is a conditional UPDATE whose affected-row count
 * decides the outcome, so exactly one caller wins whatever the number of replicas. A change given
 * a {@link ChangeRecorder} runs in a transaction with what it records (the audit events): only the
 * winner records, and the change and its record commit together or not at all (statements run
 * through {@link ConfirmationStatements}; every transition is conditioned on the row's binding,
 * {@link BOUND}).
 * Database failures propagate unchanged; the service turns them into `confirmation_unavailable`.
 */
@Injectable()
export class ConfirmationLedger {
  private readonly sql: ConfirmationStatements;

  constructor(@InjectDataSource() ds: DataSource) {
    this.sql = new ConfirmationStatements(ds);
  }

  async create(input: NewConfirmation, record?: ChangeRecorder): Promise<McpConfirmation> {
    const result = await this.sql.change(
      record,
      `INSERT INTO mcp_confirmations (organization_id, token_id, user_id, tool, arguments_digest, target_type,
              target_id, message, protocol_version, client_name, request_id, expires_at, mode, policy_version)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now() + $12::int * interval '1 second', $13, $14)
       RETURNING ${CONFIRMATION_COLUMNS}`,
      [
        input.organizationId,
        input.tokenId,
        input.userId,
        input.tool,
        input.argumentsDigest,
        input.targetType,
        input.targetId,
        input.message,
        input.protocolVersion,
        input.clientName,
        input.requestId,
        input.ttlSeconds,
        input.mode,
        input.policyVersion,
      ],
    );
    const row = result[0];
    if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
    return row;
  }

  /**
   * pending → consumed, if still pending, unexpired and bound to `binding`. Form rows only: a
   * `verified` row is confirmed on the page, never by the client's own answer.
   */
  consume(
    id: string,
    binding: ConfirmationBinding,
    record?: ChangeRecorder,
  ): Promise<LedgerTransition> {
    return this.decide(id, binding, 'consumed', record);
  }

  /** pending → declined, if still pending, unexpired and bound to `binding`. */
  decline(
    id: string,
    binding: ConfirmationBinding,
    record?: ChangeRecorder,
  ): Promise<LedgerTransition> {
    return this.decide(id, binding, 'declined', record);
  }

  /**
   * Where a confirmation stands, without deciding it (the person's answer was missing): `pending`,
   * `replayed`, `expired` (a lapsed pending row is marked so), `mismatch` or `missing`.
   */
  inspect(
    id: string,
    binding: ConfirmationBinding,
    record?: ChangeRecorder,
  ): Promise<LedgerInspection> {
    if (!UUID.test(id)) return Promise.resolve({ outcome: 'missing' });
    return this.settle(id, binding, record);
  }

  /** pending → expired, only if the row has lapsed by the database's clock. True if it changed. */
  async expire(
    id: string,
    binding: ConfirmationBinding,
    record?: ChangeRecorder,
  ): Promise<boolean> {
    const changed = await this.transition(
      id,
      binding,
      record,
      `UPDATE mcp_confirmations SET status = 'expired'
        WHERE id = $1 AND status = 'pending' AND expires_at <= now() AND ${BOUND}
        RETURNING ${CONFIRMATION_COLUMNS}`,
    );
    return changed.length === 1;
  }

  /**
   * Records which MCP call a consumed confirmation authorized. Idempotent for the same call; false
   * when the row is not consumed or already names another call. `manager`: the caller's
   * transaction (e.g. the one that writes the call history row).
   */
  async attachToolCall(id: string, toolCallId: string, manager?: EntityManager): Promise<boolean> {
    if (!UUID.test(id) || !UUID.test(toolCallId)) return false;
    const result = await this.sql.run(
      `UPDATE mcp_confirmations SET tool_call_id = $2
        WHERE id = $1 AND status = 'consumed' AND (tool_call_id IS NULL OR tool_call_id = $2)
        RETURNING id`,
      [id, toolCallId],
      manager,
    );
    return result.affected === 1;
  }

  /** The organisation's confirmation, or null (also for another organisation's id). */
  async findById(organizationId: string, id: string): Promise<McpConfirmation | null> {
    if (!UUID.test(id) || !UUID.test(organizationId)) return null;
    const result = await this.sql.run(
      `SELECT ${CONFIRMATION_COLUMNS} FROM mcp_confirmations WHERE organization_id = $1 AND id = $2`,
      [organizationId, id],
    );
    const row = result.records[0];
    return row === undefined ? null : toConfirmation(row);
  }

  /** One page of the organisation's confirmations, newest first (see {@link confirmationsListQuery}). */
  async list(filter: ConfirmationFilter): Promise<Listed<McpConfirmation>[]> {
    const q = confirmationsListQuery(filter);
    const result = await this.sql.run<ConfirmationRow & { cursor_ts: string }>(q.text, q.params);
    return listedAs(result.records, toConfirmation);
  }

  // -------------------------------------------------------------------------------------------
  // `verified` (ADR 0012): the page records the person's decision, the retry consumes it.

  /**
   * A `verified` row for the page, whoever asks (the page itself decides who may see what), with
   * whether it has lapsed by the database's clock; null when there is no such row.
   */
  async findVerified(id: string): Promise<(McpConfirmation & { lapsed: boolean }) | null> {
    if (!UUID.test(id)) return null;
    const result = await this.sql.run<SettleRow>(
      `SELECT ${CONFIRMATION_COLUMNS}, expires_at <= now() AS lapsed
         FROM mcp_confirmations WHERE id = $1 AND mode = 'verified'`,
      [id],
    );
    const row = result.records[0];
    return row === undefined ? null : { ...toConfirmation(row), lapsed: row.lapsed };
  }

  /**
   * The person's decision on the page: `confirm` marks the row verified (it stays pending until
   * the retry uses it), `decline` closes it. Only for the row's own person, while it is pending,
   * not yet decided on the page, unexpired and of `policyVersion`; one conditional UPDATE, so
   * of two concurrent decisions one wins. `tx`: the caller's transaction (the audit event's).
   * The changed row, or undefined when nothing changed (the caller reads the row to say why).
   */
  async decideOnPage(
    id: string,
    userId: string,
    policyVersion: number,
    decision: 'confirm' | 'decline',
    tx: EntityManager,
  ): Promise<McpConfirmation | undefined> {
    if (!UUID.test(id)) return undefined;
    const set =
      decision === 'confirm' ? `verified_at = now()` : `status = 'declined', decided_at = now()`;
    const result = await this.sql.run(
      `UPDATE mcp_confirmations SET ${set}
        WHERE id = $1 AND mode = 'verified' AND status = 'pending' AND verified_at IS NULL
          AND expires_at > now() AND user_id = $2 AND policy_version = $3
        RETURNING ${CONFIRMATION_COLUMNS}`,
      [id, userId, policyVersion],
      tx,
    );
    const row = result.records[0];
    return result.affected === 1 && row !== undefined ? toConfirmation(row) : undefined;
  }

  /**
   * The retry uses what the page recorded: pending and verified → consumed, if unexpired, bound
   * to `binding` and of `policyVersion`. The one caller whose UPDATE changed the row runs the
   * tool; otherwise the row as it is now (or `missing`) says why.
   */
  async consumeVerified(
    id: string,
    binding: ConfirmationBinding,
    policyVersion: number,
    record?: ChangeRecorder,
  ): Promise<{ won: true; confirmation: McpConfirmation } | VerifiedLookup> {
    if (!UUID.test(id)) return { won: false, found: null };
    // Read first, as for the form: only a row the UPDATE could change is tried in a transaction.
    const before = await this.findVerified(id);
    if (
      before === null ||
      before.status !== 'pending' ||
      before.verifiedAt === null ||
      before.lapsed ||
      before.policyVersion !== policyVersion ||
      !isBoundTo(before, binding)
    )
      return { won: false, found: before };
    const changed = await this.transition(
      id,
      binding,
      record,
      `UPDATE mcp_confirmations SET status = 'consumed', decided_at = now()
        WHERE id = $1 AND mode = 'verified' AND status = 'pending' AND verified_at IS NOT NULL
          AND expires_at > now() AND policy_version = $7 AND ${BOUND}
        RETURNING ${CONFIRMATION_COLUMNS}`,
      policyVersion,
    );
    const won = changed[0];
    if (changed.length === 1 && won !== undefined) return { won: true, confirmation: won };
    return { won: false, found: await this.findVerified(id) };
  }

  /** The client declined (or cancelled) a `verified` question: pending → declined. */
  async declineVerified(
    id: string,
    binding: ConfirmationBinding,
    record?: ChangeRecorder,
  ): Promise<boolean> {
    const changed = await this.transition(
      id,
      binding,
      record,
      `UPDATE mcp_confirmations SET status = 'declined', decided_at = now()
        WHERE id = $1 AND mode = 'verified' AND status = 'pending' AND expires_at > now() AND ${BOUND}
        RETURNING ${CONFIRMATION_COLUMNS}`,
    );
    return changed.length === 1;
  }

  /**
   * The binding's `verified` rows still pending past their expiry (asked and never confirmed, or
   * confirmed and never used) → expired: a 2025-11-25 call carries no state naming its question,
   * so the same call coming back is when a lapsed one is closed. One winner per row.
   */
  async expireLapsedVerifiedByBinding(
    binding: ConfirmationBinding,
    record?: ChangeRecorder,
  ): Promise<McpConfirmation[]> {
    return this.sql.change(
      record,
      `UPDATE mcp_confirmations SET status = 'expired'
        WHERE mode = 'verified' AND status = 'pending' AND expires_at <= now() AND ${BOUND_FROM_1}
        RETURNING ${CONFIRMATION_COLUMNS}`,
      bindingParams(binding),
    );
  }

  /**
   * A 2025-11-25 retry carries no state: it is the same call, so its binding finds the row. The
   * oldest verified, unexpired row of the binding under `policyVersion` is consumed (one winner
   * among concurrent retries: the loser's UPDATE re-checks `status` and changes nothing).
   */
  async consumeVerifiedByBinding(
    binding: ConfirmationBinding,
    policyVersion: number,
    record?: ChangeRecorder,
  ): Promise<McpConfirmation | undefined> {
    // Nothing to use (the usual case for the losers of a race): no transaction.
    const usable = await this.sql.run<{ id: string }>(
      `SELECT id FROM mcp_confirmations
        WHERE mode = 'verified' AND status = 'pending' AND verified_at IS NOT NULL
          AND expires_at > now() AND policy_version = $6 AND ${BOUND_FROM_1}
        LIMIT 1`,
      [...bindingParams(binding), policyVersion],
    );
    if (usable.records.length === 0) return undefined;
    const changed = await this.sql.change(
      record,
      `UPDATE mcp_confirmations SET status = 'consumed', decided_at = now()
        WHERE id = (SELECT id FROM mcp_confirmations
                     WHERE mode = 'verified' AND status = 'pending' AND verified_at IS NOT NULL
                       AND expires_at > now() AND policy_version = $6 AND ${BOUND_FROM_1}
                     ORDER BY verified_at LIMIT 1)
          AND mode = 'verified' AND status = 'pending' AND verified_at IS NOT NULL AND expires_at > now()
        RETURNING ${CONFIRMATION_COLUMNS}`,
      [...bindingParams(binding), policyVersion],
    );
    return changed.length === 1 ? changed[0] : undefined;
  }

  /**
   * A decline on the page that the 2025-11-25 retry has not been told yet (told once: the one
   * UPDATE that sets `reported_at` tells it; the next call asks again).
   */
  async reportDeclinedByBinding(
    binding: ConfirmationBinding,
  ): Promise<McpConfirmation | undefined> {
    const result = await this.sql.run(
      `UPDATE mcp_confirmations SET reported_at = now()
        WHERE id = (SELECT id FROM mcp_confirmations
                     WHERE mode = 'verified' AND status = 'declined' AND reported_at IS NULL
                       AND expires_at > now() AND ${BOUND_FROM_1}
                     ORDER BY created_at DESC LIMIT 1)
          AND reported_at IS NULL
        RETURNING ${CONFIRMATION_COLUMNS}`,
      bindingParams(binding),
    );
    const row = result.records[0];
    return result.affected === 1 && row !== undefined ? toConfirmation(row) : undefined;
  }

  /**
   * A `verified` row of the binding consumed within the last `seconds`: a retry that finds no
   * decision left just after one was used is a duplicate of the call that ran (it raced it), not
   * a new call to ask about.
   */
  async recentlyConsumedByBinding(
    binding: ConfirmationBinding,
    seconds: number,
  ): Promise<McpConfirmation | undefined> {
    const result = await this.sql.run(
      `SELECT ${CONFIRMATION_COLUMNS} FROM mcp_confirmations
        WHERE mode = 'verified' AND status = 'consumed'
          AND decided_at > now() - $6::int * interval '1 second' AND ${BOUND_FROM_1}
        ORDER BY decided_at DESC LIMIT 1`,
      [...bindingParams(binding), seconds],
    );
    const row = result.records[0];
    return row === undefined ? undefined : toConfirmation(row);
  }

  /** The newest open question of the binding under `policyVersion` (to ask it again, same URL). */
  async openVerifiedByBinding(
    binding: ConfirmationBinding,
    policyVersion: number,
  ): Promise<McpConfirmation | undefined> {
    const result = await this.sql.run(
      `SELECT ${CONFIRMATION_COLUMNS} FROM mcp_confirmations
        WHERE mode = 'verified' AND status = 'pending' AND verified_at IS NULL
          AND expires_at > now() AND policy_version = $6 AND ${BOUND_FROM_1}
        ORDER BY created_at DESC LIMIT 1`,
      [...bindingParams(binding), policyVersion],
    );
    const row = result.records[0];
    return row === undefined ? undefined : toConfirmation(row);
  }

  private async decide(
    id: string,
    binding: ConfirmationBinding,
    to: 'consumed' | 'declined',
    record: ChangeRecorder | undefined,
  ): Promise<LedgerTransition> {
    if (!UUID.test(id)) return { outcome: 'missing' };
    // Read first: a row already decided, lapsed or not this call's is answered from the read,
    // without a transaction (the many losers of a race once its winner committed); only a row
    // still open is worth the conditional UPDATE and its audit events.
    const before = await this.settle(id, binding, record);
    if (before.outcome !== 'pending') return before;
    const changed = await this.transition(
      id,
      binding,
      record,
      `UPDATE mcp_confirmations SET status = $7, decided_at = now()
        WHERE id = $1 AND status = 'pending' AND expires_at > now() AND ${BOUND}
          AND (mode = 'form' OR $7 = 'declined')
        RETURNING ${CONFIRMATION_COLUMNS}`,
      to,
    );
    const won = changed[0];
    if (changed.length === 1 && won !== undefined) return { outcome: to, confirmation: won };
    // The conditional UPDATE changed nothing: read the row to say why.
    const found = await this.settle(id, binding, record);
    // A bound, unlapsed, pending row would have matched the UPDATE; should one still show up
    // here, refuse it as lapsed (ask again) rather than let a second caller through.
    return found.outcome === 'pending' ? { ...found, outcome: 'expired' } : found;
  }

  /**
   * One transition of the row `id` while it is bound to `binding`: `sql` is the whole conditional
   * UPDATE, with the id at $1, {@link BOUND} at $2…$6 and `extra` from $7, returning the changed
   * row's `CONFIRMATION_COLUMNS` (recorded with what it became when `record` is given). An id
   * that is not a UUID names no row: nothing runs. The changed rows (one or none).
   */
  private async transition(
    id: string,
    binding: ConfirmationBinding,
    record: ChangeRecorder | undefined,
    sql: string,
    ...extra: unknown[]
  ): Promise<McpConfirmation[]> {
    if (!UUID.test(id)) return [];
    return this.sql.change(record, sql, [id, ...bindingParams(binding), ...extra]);
  }

  /** Reads the row and says where it stands; a lapsed pending row is marked `expired`. */
  private async settle(
    id: string,
    binding: ConfirmationBinding,
    record: ChangeRecorder | undefined,
  ): Promise<LedgerInspection> {
    const result = await this.sql.run<SettleRow>(
      `SELECT ${CONFIRMATION_COLUMNS}, expires_at <= now() AS lapsed FROM mcp_confirmations WHERE id = $1`,
      [id],
    );
    const row = result.records[0];
    if (row === undefined) return { outcome: 'missing' };
    const confirmation = toConfirmation(row);
    if (!isBoundTo(confirmation, binding)) return { outcome: 'mismatch', confirmation };
    switch (confirmation.status) {
      case 'consumed':
      case 'declined':
        return { outcome: 'replayed', confirmation };
      case 'expired':
        return { outcome: 'expired', confirmation };
      case 'pending': {
        if (!row.lapsed) return { outcome: 'pending', confirmation };
        if (await this.expire(id, binding, record)) confirmation.status = 'expired';
        return { outcome: 'expired', confirmation };
      }
      default:
        return unreachable(confirmation.status);
    }
  }
}
