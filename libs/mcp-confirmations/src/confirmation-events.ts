import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditTrail, type AuditEntry } from '@app/audit-trail';
import { unreachable } from '@app/common';
import type { CallerContext } from '@app/identity';
import type { McpConfirmation } from './mcp-confirmation.js';

/** What a ledger row just became through the caller's winning statement. */
export type LedgerChange = 'created' | 'consumed' | 'declined' | 'expired';

/**
 * What a row returned by a winning statement became, read from the row itself: a `pending` row
 * was just created (no recorded statement leads back to `pending`; the page's verification,
 * which keeps a row pending, is {@link ConfirmationLedger.decideOnPage}'s, audited by its caller
 * in its own transaction), any other row is its new status. So what is recorded cannot disagree
 * with what the statement set.
 */
export function changeOf(row: Pick<McpConfirmation, 'status'>): LedgerChange {
  return row.status === 'pending' ? 'created' : row.status;
}

/**
 * Writes what must commit with a row's change (its audit events), in the change's own
 * transaction: the change and its events commit together or not at all, and only the one caller
 * whose conditional statement changed the row writes them, whatever the number of replicas.
 */
export type ChangeRecorder = (
  change: LedgerChange,
  row: McpConfirmation,
  tx: EntityManager,
) => Promise<void>;

/** One audit event about a confirmation: its action and what changed (no argument values). */
export type ConfirmationEvent = Pick<AuditEntry, 'action' | 'changes'>;

/** How the audit trail names a confirmation: its tool and what it acts on (as approvals do). */
export function confirmationLabel(c: Pick<McpConfirmation, 'tool' | 'targetType' | 'targetId'>) {
  return `${c.tool} ${c.targetType} ${c.targetId}`;
}

/**
 * The audit events a change of a row means, oldest first:
 * - `created` → `confirmation.requested` (the server asked; the mode, tool, target, policy version
 *   and expiry);
 * - `consumed` → for `form`, `confirmation.confirmed` (the client's form said yes) then
 *   `confirmation.executed`; for `verified`, `confirmation.executed` alone (the page recorded
 *   `confirmation.confirmed` when the person confirmed);
 * - `declined` → `confirmation.declined` (the client's answer was decline or cancel);
 * - `expired` → `confirmation.expired`, with whether it lapsed unanswered or confirmed but unused.
 */
export function eventsOf(change: LedgerChange, row: McpConfirmation): ConfirmationEvent[] {
  switch (change) {
    case 'created':
      return [
        {
          action: 'confirmation.requested',
          changes: {
            status: { before: null, after: 'pending' },
            mode: { before: null, after: row.mode },
            tool: { before: null, after: row.tool },
            target: { before: null, after: `${row.targetType} ${row.targetId}` },
            policy_version: { before: null, after: row.policyVersion },
            expires_at: { before: null, after: row.expiresAt.toISOString() },
          },
        },
      ];
    case 'consumed': {
      const executed: ConfirmationEvent = {
        action: 'confirmation.executed',
        changes: { status: { before: 'confirmed', after: 'consumed' } },
      };
      if (row.mode === 'verified') return [executed];
      return [
        {
          action: 'confirmation.confirmed',
          changes: { status: { before: 'pending', after: 'confirmed' } },
        },
        executed,
      ];
    }
    case 'declined':
      return [
        {
          action: 'confirmation.declined',
          changes: {
            status: { before: 'pending', after: 'declined' },
            reason: { before: null, after: 'declined or cancelled in the client' },
          },
        },
      ];
    case 'expired': {
      const confirmed = row.verifiedAt !== null;
      return [
        {
          action: 'confirmation.expired',
          changes: {
            status: { before: confirmed ? 'confirmed' : 'pending', after: 'expired' },
            expires_at: { before: null, after: row.expiresAt.toISOString() },
            reason: {
              before: null,
              after: confirmed
                ? 'confirmed on the page but not used before it expired'
                : 'not answered before it expired',
            },
          },
        },
      ];
    }
    default:
      return unreachable(change);
  }
}

/**
 * The audit trail of the ledger's changes made for an MCP call: the call's person, through its
 * token and client (channel `mcp`, its request id, and so its trace), is the actor; the event's
 * `confirmation_id` is the confirmation's own, so the admins' confirmation detail lists them.
 */
@Injectable()
export class ConfirmationEvents {
  constructor(private readonly audit: AuditTrail) {}

  /** The recorder for changes made on behalf of `caller`. */
  by(caller: CallerContext): ChangeRecorder {
    return async (change, row, tx) => {
      const actor = { ...this.audit.memberActor(caller), confirmationId: row.id };
      for (const event of eventsOf(change, row)) {
        await this.audit.record(
          tx,
          {
            ...event,
            resourceType: 'confirmation',
            resourceId: row.id,
            resourceLabel: confirmationLabel(row),
          },
          actor,
        );
      }
    };
  }
}
