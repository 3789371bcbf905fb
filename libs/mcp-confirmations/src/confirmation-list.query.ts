import {
  equals,
  newestFirstQuery,
  type Condition,
  type NewestFirstWindow,
  type SqlQuery,
} from '@app/rest-contract';
import { CONFIRMATION_COLUMNS } from './confirmation.row.js';
import type { ConfirmationStatus, McpConfirmation } from './mcp-confirmation.js';

/** Which of an organisation's confirmations to list, newest first. */
export interface ConfirmationFilter extends NewestFirstWindow {
  organizationId: string;
  /** As people see it: a lapsed `pending` row is `expired` (see {@link visibleStatus}). */
  status?: ConfirmationStatus;
  tool?: string;
  userId?: string;
}

/*
 * The ledger marks a lapsed pending row `expired` only when someone presents it, so a row can
 * still say `pending` after its expiry. Whoever shows a status shows the visible one: these two
 * (the SQL filter and the in-memory mapping) are the one place that rule is written.
 */

/** The stored-status condition for each visible status. */
const STATUS_CONDITIONS: Readonly<Record<ConfirmationStatus, Condition>> = {
  pending: () => `status = 'pending' AND expires_at > now()`,
  expired: () => `(status = 'expired' OR (status = 'pending' AND expires_at <= now()))`,
  consumed: (bind) => `status = ${bind('consumed')}`,
  declined: (bind) => `status = ${bind('declined')}`,
};

/** The status a person sees: a pending confirmation past its expiry is expired. */
export function visibleStatus(
  c: Pick<McpConfirmation, 'status' | 'expiresAt'>,
  now: Date,
): ConfirmationStatus {
  return c.status === 'pending' && c.expiresAt.getTime() <= now.getTime() ? 'expired' : c.status;
}

/** The list statement {@link ConfirmationLedger.list} runs (newest first, keyset paged). */
export function confirmationsListQuery(f: ConfirmationFilter): SqlQuery {
  return newestFirstQuery({
    from: 'mcp_confirmations',
    columns: CONFIRMATION_COLUMNS,
    organizationId: f.organizationId,
    conditions: [
      f.status === undefined ? undefined : STATUS_CONDITIONS[f.status],
      equals('tool', f.tool),
      equals('user_id', f.userId, '::uuid'),
    ],
    window: f,
  });
}
