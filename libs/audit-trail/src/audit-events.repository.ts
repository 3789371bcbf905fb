import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  contains,
  CURSOR_TIMESTAMP_SQL,
  equals,
  newestFirstQuery,
  type NewestFirstWindow,
  type SqlQuery,
} from '@app/rest-contract';
import type { TokenKind } from '@app/access-vocabulary';
import type { AuditChanges } from './audit-changes.js';
import type {
  AuditAction,
  AuditActorType,
  AuditChannel,
  AuditResourceType,
} from './audit-vocabulary.js';

/** Who acted. Normally taken from the authenticated caller; explicit only for public routes. */
export interface AuditActor {
  organizationId: string;
  actorType: AuditActorType;
  actorUserId: string | null;
  /** The actor's display name and e-mail at the time (kept when the person changes or goes). */
  actorName: string | null;
  actorEmail: string | null;
  tokenId: string | null;
  tokenName: string | null;
  tokenKind: TokenKind | 'session' | null;
  channel: AuditChannel;
  clientName: string | null;
  requestId: string | null;
  confirmationId: string | null;
}

/** One event to append: who acted ({@link AuditActor}), on what, and what changed. */
export interface NewAuditEvent extends AuditActor {
  action: AuditAction;
  resourceType: AuditResourceType;
  resourceId: string;
  resourceLabel: string | null;
  changes: AuditChanges;
  traceId: string | null;
}

export interface AuditEventRow {
  id: string;
  occurred_at: Date;
  cursor_ts: string;
  actor_type: AuditActorType;
  actor_user_id: string | null;
  actor_name: string | null;
  actor_email: string | null;
  token_id: string | null;
  token_name: string | null;
  token_kind: TokenKind | 'session' | null;
  channel: AuditChannel;
  client_name: string | null;
  action: AuditAction;
  resource_type: AuditResourceType;
  resource_id: string;
  resource_label: string | null;
  changes: AuditChanges;
  request_id: string | null;
  confirmation_id: string | null;
  trace_id: string | null;
}

export interface AuditEventFilter extends NewestFirstWindow {
  organizationId: string;
  actorUserId?: string;
  action?: string;
  resourceType?: string;
  resourceId?: string;
  channel?: string;
  /** Substring (any case) of the actor's name or e-mail, the token's name, the resource label or the client name. */
  q?: string;
}

const ROW_COLUMNS = `id, occurred_at, actor_type, actor_user_id,
  actor_name, actor_email, token_id, token_name, token_kind, channel, client_name, action, resource_type, resource_id,
  resource_label, changes, request_id, confirmation_id, trace_id`;
const COLUMNS = `${ROW_COLUMNS}, ${CURSOR_TIMESTAMP_SQL('occurred_at')} AS cursor_ts`;

/**
 * Oldest first in the order the events were written: `occurred_at` ties within one clock tick (a
 * whole millisecond on the embedded engine), and `seq` is numbered as each row is inserted
 * (migration AuditEventSequence1765900000000; NULL on rows written before it).
 */
const WRITTEN_ORDER = 'occurred_at, seq, id';

/**
 * The exact list statement {@link AuditEventsRepository.list} runs (exported for the history
 * bench, which times the real statement).
 */
export function auditEventsListQuery(f: AuditEventFilter): SqlQuery {
  return newestFirstQuery({
    from: 'audit_events',
    columns: ROW_COLUMNS,
    sortColumn: 'occurred_at',
    organizationId: f.organizationId,
    conditions: [
      equals('actor_user_id', f.actorUserId, '::uuid'),
      equals('action', f.action),
      equals('resource_type', f.resourceType),
      equals('resource_id', f.resourceId, '::uuid'),
      equals('channel', f.channel),
      // Served by the trigram index on the generated search_text (ix_audit_events_search).
      contains(['search_text'], f.q),
    ],
    window: f,
  });
}

/** All SQL on `audit_events`. Insert only: the table has no update or delete path (and a trigger refuses them). */
@Injectable()
export class AuditEventsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Appends inside the caller's transaction, so the event commits or rolls back with the change. */
  async append(tx: EntityManager, e: NewAuditEvent): Promise<void> {
    await tx.query(
      `INSERT INTO audit_events (organization_id, actor_type, actor_user_id, token_id, channel, client_name, action,
                                 resource_type, resource_id, changes, request_id, confirmation_id,
                                 actor_name, actor_email, token_name, token_kind, resource_label, trace_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13, $14, $15, $16, $17, $18)`,
      [
        e.organizationId,
        e.actorType,
        e.actorUserId,
        e.tokenId,
        e.channel,
        e.clientName,
        e.action,
        e.resourceType,
        e.resourceId,
        JSON.stringify(e.changes),
        e.requestId,
        e.confirmationId,
        e.actorName,
        e.actorEmail,
        e.tokenName,
        e.tokenKind,
        e.resourceLabel,
        e.traceId,
      ],
    );
  }

  /** Newest first, `(occurred_at, id)` keyset order. */
  async list(f: AuditEventFilter): Promise<AuditEventRow[]> {
    const { text, params } = auditEventsListQuery(f);
    return await this.ds.query<AuditEventRow[]>(text, params);
  }

  /**
   * The export's order: oldest first after a position, before `until` (the index on
   * `(organization_id, occurred_at DESC, id DESC)` read backwards), so a reader pulling again and
   * again only ever moves forward.
   */
  feed(f: {
    organizationId: string;
    since?: string;
    until: string;
    after?: readonly string[];
    take: number;
  }): Promise<AuditEventRow[]> {
    const params: unknown[] = [f.organizationId, f.until];
    const where = ['organization_id = $1::uuid', 'occurred_at < $2::timestamptz'];
    if (f.since !== undefined) {
      params.push(f.since);
      where.push(`occurred_at >= $${params.length}::timestamptz`);
    }
    if (f.after !== undefined) {
      params.push(f.after[0], f.after[1]);
      where.push(
        `(occurred_at, id) > ($${params.length - 1}::timestamptz, $${params.length}::uuid)`,
      );
    }
    params.push(f.take);
    return this.ds.query<AuditEventRow[]>(
      `SELECT ${COLUMNS} FROM audit_events WHERE ${where.join(' AND ')}
        ORDER BY occurred_at, id LIMIT $${params.length}`,
      params,
    );
  }

  /** The events a confirmation produced, oldest first (the order the writes recorded them in). */
  ofConfirmation(organizationId: string, confirmationId: string): Promise<AuditEventRow[]> {
    return this.ds.query<AuditEventRow[]>(
      `SELECT ${COLUMNS} FROM audit_events WHERE organization_id = $1 AND confirmation_id = $2
        ORDER BY ${WRITTEN_ORDER}`,
      [organizationId, confirmationId],
    );
  }

  /** The events one request wrote (a tool call's, through its request id), oldest first. */
  ofRequest(organizationId: string, requestId: string): Promise<AuditEventRow[]> {
    return this.ds.query<AuditEventRow[]>(
      `SELECT ${COLUMNS} FROM audit_events WHERE organization_id = $1 AND request_id = $2
        ORDER BY ${WRITTEN_ORDER}`,
      [organizationId, requestId],
    );
  }
}
