import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { camelCasedRows, firstRowAs, organizationRow, type RowSource } from '@app/database';
import { listedAs, newestFirstQuery, type Condition, type Listed } from '@app/rest-contract';
import type { Approval, ApprovalBinding, ApprovalStatus, DecidedVia, Decider } from './approval.js';

interface ApprovalRow {
  id: string;
  organization_id: string;
  token_id: string;
  user_id: string;
  requester_name: string;
  requester_email: string;
  tool: string;
  arguments_digest: string;
  arguments: Record<string, unknown>;
  target_type: string;
  target_id: string;
  message: string;
  client_name: string | null;
  protocol_version: string;
  request_id: string;
  policy_version: number;
  expiry_seconds: number;
  status: ApprovalStatus;
  created_at: Date;
  expires_at: Date;
  decided_at: Date | null;
  decided_by: string | null;
  decided_by_name: string | null;
  decided_via: DecidedVia | null;
  decided_token_name: string | null;
  reason: string | null;
  executed_at: Date | null;
  executed_request_id: string | null;
  reported_at: Date | null;
}

/** A row with whether it has lapsed by the database's clock. */
export interface FoundApproval {
  approval: Approval;
  lapsed: boolean;
}

const COLUMNS = `id, organization_id, token_id, user_id, requester_name, requester_email, tool,
  arguments_digest, arguments, target_type, target_id, message, client_name, protocol_version,
  request_id, policy_version, expiry_seconds, status, created_at, expires_at, decided_at,
  decided_by, decided_by_name, decided_via, decided_token_name, reason, executed_at,
  executed_request_id, reported_at`;

const toApproval: (r: ApprovalRow) => Approval = camelCasedRows(COLUMNS);

const APPROVALS: RowSource = { table: 'mcp_approvals', columns: COLUMNS };
/** With whether the request lapsed, by the database's clock. */
const LAPSING_APPROVALS: RowSource = {
  ...APPROVALS,
  columns: `${COLUMNS}, expires_at <= now() AS lapsed`,
};

/** The row must still be bound to what the caller presents ($2…$6). */
const BOUND = `organization_id = $2 AND token_id = $3 AND user_id = $4 AND tool = $5 AND arguments_digest = $6`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A request to record; it expires `expirySeconds` after the database's `now()`. */
export type NewApproval = { binding: ApprovalBinding } & Pick<
  Approval,
  | 'requesterName'
  | 'requesterEmail'
  | 'arguments'
  | 'targetType'
  | 'targetId'
  | 'message'
  | 'clientName'
  | 'protocolVersion'
  | 'requestId'
  | 'policyVersion'
  | 'expirySeconds'
>;

/** Which of an organisation's requests to list, newest first. */
export interface ApprovalFilter {
  organizationId: string;
  /** As people see it: an open request past its expiry is `expired`. */
  status?: ApprovalStatus;
  after?: readonly string[];
  take: number;
}

/** The stored-status condition for each visible status (see `visibleStatus`). */
const STATUS_CONDITIONS: Readonly<Record<ApprovalStatus, Condition>> = {
  pending: () => `status = 'pending' AND expires_at > now()`,
  approved: () => `status = 'approved' AND expires_at > now()`,
  expired: () =>
    `(status = 'expired' OR (status IN ('pending', 'approved') AND expires_at <= now()))`,
  denied: (bind) => `status = ${bind('denied')}`,
  executed: (bind) => `status = ${bind('executed')}`,
  superseded: (bind) => `status = ${bind('superseded')}`,
};

/**
 * All SQL on `mcp_approvals`. Every state change is a conditional UPDATE whose returned row decides
 * the outcome, so exactly one caller wins whatever the number of replicas; at most one request per
 * binding is open (`uq_mcp_approvals_open`). Database failures propagate unchanged.
 */
@Injectable()
export class ApprovalsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The binding's open request (`pending` or `approved`), if any, with whether it lapsed. */
  async findOpen(b: ApprovalBinding): Promise<FoundApproval | undefined> {
    const rows = await this.ds.query<Array<ApprovalRow & { lapsed: boolean }>>(
      `SELECT ${COLUMNS}, expires_at <= now() AS lapsed FROM mcp_approvals
        WHERE status IN ('pending', 'approved') AND organization_id = $1 AND token_id = $2
          AND user_id = $3 AND tool = $4 AND arguments_digest = $5`,
      bindingParams(b),
    );
    return firstRowAs(rows, toLapsingApproval);
  }

  /** The binding's newest denied or expired request its requester has not been told of yet. */
  async findUnreported(b: ApprovalBinding): Promise<Approval | undefined> {
    const rows = await this.ds.query<ApprovalRow[]>(
      `SELECT ${COLUMNS} FROM mcp_approvals
        WHERE status IN ('denied', 'expired') AND reported_at IS NULL AND organization_id = $1
          AND token_id = $2 AND user_id = $3 AND tool = $4 AND arguments_digest = $5
        ORDER BY created_at DESC LIMIT 1`,
      bindingParams(b),
    );
    return firstRowAs(rows, toApproval);
  }

  /** A new pending request; undefined when the binding already has an open one (a concurrent retry). */
  async insertPending(tx: EntityManager, a: NewApproval): Promise<Approval | undefined> {
    const rows = await tx.query<ApprovalRow[]>(
      `INSERT INTO mcp_approvals (organization_id, token_id, user_id, tool, arguments_digest,
              requester_name, requester_email, arguments, target_type, target_id, message, client_name,
              protocol_version, request_id, policy_version, expiry_seconds, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13, $14, $15, $16,
               now() + $16::int * interval '1 second')
       ON CONFLICT (organization_id, token_id, user_id, tool, arguments_digest)
         WHERE status IN ('pending', 'approved') DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        ...bindingParams(a.binding),
        a.requesterName,
        a.requesterEmail,
        JSON.stringify(a.arguments),
        a.targetType,
        a.targetId,
        a.message,
        a.clientName,
        a.protocolVersion,
        a.requestId,
        a.policyVersion,
        a.expirySeconds,
      ],
    );
    return firstRowAs(rows, toApproval);
  }

  /**
   * approved → executed, if still approved, unlapsed, of `policyVersion` and bound to `b`: the
   * single use. Undefined when another caller used it first (or it lapsed meanwhile).
   */
  async consume(
    tx: EntityManager,
    id: string,
    b: ApprovalBinding,
    policyVersion: number,
    requestId: string,
  ): Promise<Approval | undefined> {
    const [rows] = await tx.query<[ApprovalRow[], number]>(
      `UPDATE mcp_approvals SET status = 'executed', executed_at = now(), executed_request_id = $8
        WHERE id = $1 AND status = 'approved' AND expires_at > now() AND policy_version = $7 AND ${BOUND}
        RETURNING ${COLUMNS}`,
      [id, ...bindingParams(b), policyVersion, requestId],
    );
    return firstRowAs(rows, toApproval);
  }

  /** An open request → expired, only if it has lapsed by the database's clock. */
  async expire(tx: EntityManager, id: string): Promise<Approval | undefined> {
    const [rows] = await tx.query<[ApprovalRow[], number]>(
      `UPDATE mcp_approvals SET status = 'expired'
        WHERE id = $1 AND status IN ('pending', 'approved') AND expires_at <= now()
        RETURNING ${COLUMNS}`,
      [id],
    );
    return firstRowAs(rows, toApproval);
  }

  /** An open request asked under another policy version than `currentVersion` → superseded. */
  async supersede(id: string, currentVersion: number): Promise<boolean> {
    const [rows] = await this.ds.query<[Array<{ id: string }>, number]>(
      `UPDATE mcp_approvals SET status = 'superseded', reported_at = now()
        WHERE id = $1 AND status IN ('pending', 'approved') AND policy_version <> $2
        RETURNING id`,
      [id, currentVersion],
    );
    return rows.length === 1;
  }

  /** Marks a denial or expiry as told to its requester; true for the one caller that did. */
  async markReported(id: string): Promise<boolean> {
    const [rows] = await this.ds.query<[Array<{ id: string }>, number]>(
      `UPDATE mcp_approvals SET reported_at = now()
        WHERE id = $1 AND reported_at IS NULL AND status IN ('denied', 'expired')
        RETURNING id`,
      [id],
    );
    return rows.length === 1;
  }

  /** The requester's own request `id` (their person and organisation), with whether it lapsed. */
  async findRequested(
    id: string,
    organizationId: string,
    userId: string,
  ): Promise<FoundApproval | undefined> {
    if (!UUID.test(id)) return undefined;
    const rows = await this.ds.query<Array<ApprovalRow & { lapsed: boolean }>>(
      `SELECT ${COLUMNS}, expires_at <= now() AS lapsed FROM mcp_approvals
        WHERE id = $1 AND organization_id = $2 AND user_id = $3`,
      [id, organizationId, userId],
    );
    return firstRowAs(rows, toLapsingApproval);
  }

  /**
   * The requester withdraws their open request (`pending` or `approved`, not yet used): it is
   * closed as `expired` and counts as told, so no retry reports it. Undefined when it was not open.
   */
  async withdraw(
    tx: EntityManager,
    id: string,
    organizationId: string,
    userId: string,
  ): Promise<Approval | undefined> {
    const [rows] = await tx.query<[ApprovalRow[], number]>(
      `UPDATE mcp_approvals SET status = 'expired', reported_at = now()
        WHERE id = $1 AND organization_id = $2 AND user_id = $3 AND status IN ('pending', 'approved')
        RETURNING ${COLUMNS}`,
      [id, organizationId, userId],
    );
    return firstRowAs(rows, toApproval);
  }

  /** The organisation's request `id`; undefined when there is none (or `id` is no uuid). */
  async findInOrganization(organizationId: string, id: string): Promise<Approval | undefined> {
    if (!UUID.test(id)) return undefined;
    const row = await organizationRow<ApprovalRow>(this.ds, APPROVALS, organizationId, id);
    return row === undefined ? undefined : toApproval(row);
  }

  /** The tool of the organisation's request `id`; undefined when there is none. */
  async toolOf(organizationId: string, id: string): Promise<string | undefined> {
    if (!UUID.test(id)) return undefined;
    const source = { ...APPROVALS, columns: 'tool' };
    return (await organizationRow<{ tool: string }>(this.ds, source, organizationId, id))?.tool;
  }

  /**
   * Whether the binding's newest request ran within the last `seconds`: a retry arriving then is a
   * duplicate of the call that ran (e.g. one of several sent at once), not a new call.
   */
  async executedWithin(b: ApprovalBinding, seconds: number): Promise<Approval | undefined> {
    const rows = await this.ds.query<ApprovalRow[]>(
      `SELECT ${COLUMNS} FROM mcp_approvals
        WHERE status = 'executed' AND executed_at > now() - $6::int * interval '1 second'
          AND organization_id = $1 AND token_id = $2 AND user_id = $3 AND tool = $4
          AND arguments_digest = $5
        ORDER BY executed_at DESC LIMIT 1`,
      [...bindingParams(b), seconds],
    );
    return firstRowAs(rows, toApproval);
  }

  /** The organisation's request, locked for the caller's transaction, with whether it lapsed. */
  async lock(
    tx: EntityManager,
    organizationId: string,
    id: string,
  ): Promise<FoundApproval | undefined> {
    if (!UUID.test(id)) return undefined;
    const row = await organizationRow<ApprovalRow & { lapsed: boolean }>(
      tx,
      LAPSING_APPROVALS,
      organizationId,
      id,
      { lock: true },
    );
    return row === undefined ? undefined : toLapsingApproval(row);
  }

  /**
   * pending → approved (open again for `expiry_seconds` from now, for the retry) or denied, by
   * `decider` (through the console or the API), never the requester; only while pending and
   * unlapsed.
   */
  async decide(
    tx: EntityManager,
    id: string,
    to: 'approved' | 'denied',
    decider: Decider,
    reason: string | null,
  ): Promise<Approval | undefined> {
    const [rows] = await tx.query<[ApprovalRow[], number]>(
      `UPDATE mcp_approvals
          SET status = $2, decided_at = now(), decided_by = $3, decided_by_name = $4, reason = $5,
              decided_via = $6, decided_token_name = $7,
              expires_at = CASE WHEN $2 = 'approved'
                THEN now() + expiry_seconds * interval '1 second' ELSE expires_at END
        WHERE id = $1 AND status = 'pending' AND expires_at > now() AND user_id <> $3
        RETURNING ${COLUMNS}`,
      [id, to, decider.userId, decider.name, reason, decider.via, decider.tokenName],
    );
    return firstRowAs(rows, toApproval);
  }

  /** One page of the organisation's requests, newest first (`cursor_ts` with microseconds). */
  async list(f: ApprovalFilter): Promise<Listed<Approval>[]> {
    const q = newestFirstQuery({
      from: 'mcp_approvals',
      columns: COLUMNS,
      organizationId: f.organizationId,
      conditions: [f.status === undefined ? undefined : STATUS_CONDITIONS[f.status]],
      window: f,
    });
    const rows = await this.ds.query<Array<ApprovalRow & { cursor_ts: string }>>(q.text, q.params);
    return listedAs(rows, toApproval);
  }

  /** How many requests of the organisation wait for a decision now. */
  async countPending(organizationId: string): Promise<number> {
    const rows = await this.ds.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM mcp_approvals
        WHERE organization_id = $1 AND status = 'pending' AND expires_at > now()`,
      [organizationId],
    );
    return rows[0]?.n ?? 0;
  }
}

function bindingParams(b: ApprovalBinding): string[] {
  return [b.organizationId, b.tokenId, b.userId, b.tool, b.argumentsDigest];
}

function toLapsingApproval(r: ApprovalRow & { lapsed: boolean }): FoundApproval {
  return { approval: toApproval(r), lapsed: r.lapsed };
}
