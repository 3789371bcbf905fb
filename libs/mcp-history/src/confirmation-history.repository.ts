import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { ConfirmationStatus, McpConfirmationEntity } from '@app/mcp-confirmations';
import { equals, newestFirstQuery, type Condition, type SqlQuery } from '@app/rest-contract';

/** The confirmation fields the admin queries show (the ledger's entity has the same names). */
export type ConfirmationView = Pick<
  McpConfirmationEntity,
  | 'id'
  | 'tool'
  | 'status'
  | 'targetType'
  | 'targetId'
  | 'message'
  | 'protocolVersion'
  | 'clientName'
  | 'userId'
  | 'tokenId'
  | 'createdAt'
  | 'expiresAt'
  | 'decidedAt'
  | 'toolCallId'
>;

export interface ConfirmationListRow extends ConfirmationView {
  cursor_ts: string;
}

export interface ConfirmationFilter {
  organizationId: string;
  /** As the admin sees it: a lapsed `pending` row is `expired` (the ledger marks it lazily). */
  status?: ConfirmationStatus;
  tool?: string;
  userId?: string;
  since?: string;
  until?: string;
  after?: readonly string[];
  take: number;
}

const COLUMNS = `id, tool, status, target_type AS "targetType", target_id AS "targetId", message,
  protocol_version AS "protocolVersion", client_name AS "clientName", user_id AS "userId", token_id AS "tokenId",
  created_at AS "createdAt", expires_at AS "expiresAt", decided_at AS "decidedAt", tool_call_id AS "toolCallId"`;

/** The stored-status condition for each status as the admin sees it (lapsed pending rows are expired). */
const STATUS_CONDITIONS: Readonly<Record<ConfirmationStatus, Condition>> = {
  pending: () => `status = 'pending' AND expires_at > now()`,
  expired: () => `(status = 'expired' OR (status = 'pending' AND expires_at <= now()))`,
  consumed: (bind) => `status = ${bind('consumed')}`,
  declined: (bind) => `status = ${bind('declined')}`,
};

/** The exact list statement {@link ConfirmationHistoryRepository.list} runs (newest first). */
export function confirmationsListQuery(f: ConfirmationFilter): SqlQuery {
  return newestFirstQuery({
    from: 'mcp_confirmations',
    columns: COLUMNS,
    organizationId: f.organizationId,
    conditions: [
      f.status === undefined ? undefined : STATUS_CONDITIONS[f.status],
      equals('tool', f.tool),
      equals('user_id', f.userId, '::uuid'),
    ],
    since: f.since,
    until: f.until,
    after: f.after,
    take: f.take,
  });
}

/**
 * Admin reads of confirmation history: the list of `mcp_confirmations` (a single one is read
 * through the ledger; the audit events it produced through the audit trail).
 */
@Injectable()
export class ConfirmationHistoryRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  list(f: ConfirmationFilter): Promise<ConfirmationListRow[]> {
    const q = confirmationsListQuery(f);
    return this.ds.query<ConfirmationListRow[]>(q.text, q.params);
  }
}
