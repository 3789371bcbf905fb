import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { RequestContext, type CallerContext } from '@app/identity';
import { currentTraceId } from '@app/tracing';
import {
  assertTimeRange,
  DEFAULT_PAGE_LIMIT,
  decodeCursor,
  encodeCursor,
  MAX_PAGE_LIMIT,
  readNewestFirstPage,
  type Page,
  type Plain,
} from '@app/rest-contract';
import type { AuditChanges } from './audit-changes.js';
import type {
  AuditEventDto,
  ExportAuditEventsQueryDto,
  ListAuditEventsQueryDto,
} from './audit-event.dto.js';
import {
  AuditEventsRepository,
  type AuditActor,
  type AuditEventRow,
} from './audit-events.repository.js';
import type { AuditAction, AuditActorType, AuditResourceType } from './audit-vocabulary.js';

export interface AuditEntry {
  action: AuditAction;
  resourceType: AuditResourceType;
  resourceId: string;
  /**
   * How a person recognises the resource, as it is now (after a delete: as it was): a portal
   * user's or a member's e-mail, an account's or a token's name. Searchable with `?q=`.
   */
  resourceLabel: string;
  changes: AuditChanges;
}

export type { AuditActor };

/**
 * How old an event must be before the export hands it out. An event's time is taken inside its
 * write's transaction, which commits a moment later: a reader that moved past that time could
 * otherwise never see it. A write transaction lasts at most the request deadline (5 s by default,
 * and the database ends one idle for 10 s), so a minute leaves a wide margin.
 */
export const EXPORT_SETTLE_MS = 60_000;

/** The admin command's export: this many events per query. */
const EXPORT_BATCH = MAX_PAGE_LIMIT;

/**
 * The organisation audit trail. Every write calls {@link record} with its own transaction, so the
 * event and the change commit (or roll back) together. The actor, token, channel, client name,
 * request id and confirmation id come from the server-side request context, never from input.
 */
@Injectable()
export class AuditTrail {
  constructor(
    private readonly events: AuditEventsRepository,
    private readonly context: RequestContext,
  ) {}

  async record(
    tx: EntityManager,
    entry: AuditEntry,
    actor: AuditActor = this.callerAsActor(),
  ): Promise<void> {
    // The trace of the request writing it (the ambient span), like the request id.
    await this.events.append(tx, { ...actor, ...entry, traceId: currentTraceId() });
    // What must commit with the caller's write (an MCP write tool's history row) joins it here.
    await this.context.takeWithWrite()?.(tx);
  }

  /**
   * The actor for a public request (no token): e.g. a portal user accepting their invitation,
   * named by what they are known as.
   */
  anonymousActor(
    organizationId: string,
    actorType: AuditActorType,
    who: { name: string; email: string },
  ): AuditActor {
    return {
      organizationId,
      actorType,
      actorUserId: null,
      actorName: who.name,
      actorEmail: who.email,
      tokenId: null,
      tokenName: null,
      tokenKind: null,
      channel: 'api',
      clientName: null,
      requestId: this.context.requestId || null,
      confirmationId: null,
    };
  }

  /**
   * The actor for a write made by `npm run admin` (no request, no token, no person): the command,
   * named as the operator typed it (`npm run admin org:create`).
   */
  adminCommandActor(organizationId: string, command: string): AuditActor {
    return {
      organizationId,
      actorType: 'admin_command',
      actorUserId: null,
      actorName: `npm run admin ${command}`,
      actorEmail: null,
      tokenId: null,
      tokenName: null,
      tokenKind: null,
      channel: 'cli',
      clientName: null,
      requestId: null,
      confirmationId: null,
    };
  }

  /**
   * The actor on a sign-in page (channel `web`, no token): the `person` once they proved who they
   * are, `anonymous` before (whoever asked for a sign-in link; `who` is then the person the
   * request names, not a proven actor, so the actor's name and e-mail stay empty).
   */
  signInPageActor(
    organizationId: string,
    actorType: 'person' | 'anonymous',
    who: { userId: string; name: string; email: string },
    requestId: string | null,
  ): AuditActor {
    const proven = actorType === 'person';
    return {
      organizationId,
      actorType,
      actorUserId: proven ? who.userId : null,
      actorName: proven ? who.name : null,
      actorEmail: proven ? who.email : null,
      tokenId: null,
      tokenName: null,
      tokenKind: null,
      channel: 'web',
      clientName: null,
      requestId,
      confirmationId: null,
    };
  }

  /** What an MCP confirmation led to (for the admins' confirmation detail). */
  async eventsOfConfirmation(
    organizationId: string,
    confirmationId: string,
  ): Promise<Plain<AuditEventDto>[]> {
    return (await this.events.ofConfirmation(organizationId, confirmationId)).map(toDto);
  }

  /** What one request wrote (for the admins' tool-call detail: a call's writes share its request id). */
  async eventsOfRequest(
    organizationId: string,
    requestId: string,
  ): Promise<Plain<AuditEventDto>[]> {
    return (await this.events.ofRequest(organizationId, requestId)).map(toDto);
  }

  async list(query: ListAuditEventsQueryDto): Promise<Page<Plain<AuditEventDto>>> {
    assertTimeRange(query);
    return readNewestFirstPage(
      query,
      (window) =>
        this.events.list({
          organizationId: this.context.organizationId,
          actorUserId: query.actor,
          action: query.action,
          resourceType: query.resource_type,
          resourceId: query.resource_id,
          channel: query.channel,
          q: query.q,
          since: query.since,
          until: query.until,
          ...window,
        }),
      toDto,
    );
  }

  /** One page of the caller's organisation's export (`GET /v1/audit-events/export`). */
  exportPage(query: ExportAuditEventsQueryDto): Promise<Page<Plain<AuditEventDto>>> {
    return this.exportPageOf(this.context.organizationId, query);
  }

  /**
   * One page of an organisation's events oldest first, in the API's shape: from `since` (or after
   * the cursor) to `until`, which is never later than {@link EXPORT_SETTLE_MS} ago. The next
   * cursor is where the page ended, or the one given when nothing came (ask again later).
   */
  async exportPageOf(
    organizationId: string,
    query: Plain<ExportAuditEventsQueryDto>,
    now = Date.now(),
  ): Promise<Page<Plain<AuditEventDto>>> {
    const settled = now - EXPORT_SETTLE_MS;
    const until =
      query.until !== undefined && Date.parse(query.until) < settled
        ? query.until
        : new Date(settled).toISOString();
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const rows = await this.events.feed({
      organizationId,
      since: query.since,
      until,
      after,
      take: query.limit ?? DEFAULT_PAGE_LIMIT,
    });
    const last = rows.at(-1);
    return {
      data: rows.map(toDto),
      next_cursor:
        last === undefined ? (query.cursor ?? null) : encodeCursor([last.cursor_ts, last.id]),
    };
  }

  /**
   * Every event of `[since, until)` oldest first, one JSON line each (`npm run admin --
   * audit:export`): the export API's pages, so each line is the API's event, field for field.
   */
  async *exportLines(
    organizationId: string,
    range: { since?: string; until?: string },
  ): AsyncGenerator<string> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.exportPageOf(organizationId, {
        ...range,
        cursor,
        limit: EXPORT_BATCH,
      });
      for (const event of page.data) yield `${JSON.stringify(event)}\n`;
      if (page.data.length < EXPORT_BATCH || page.next_cursor === null) return;
      cursor = page.next_cursor;
    }
  }

  private callerAsActor(): AuditActor {
    return this.memberActor(this.context.caller);
  }

  /**
   * The actor for a member's write made outside the REST handler that would name it (e.g. the MCP
   * confirmation gate recording an approval request for the call it is judging).
   */
  memberActor(c: CallerContext): AuditActor {
    return {
      organizationId: c.principal.organizationId,
      actorType: 'member',
      actorUserId: c.principal.userId,
      actorName: c.principal.userName,
      actorEmail: c.principal.userEmail,
      tokenId: c.principal.tokenId,
      tokenName: c.principal.tokenName,
      tokenKind: c.principal.tokenKind,
      channel: c.channel,
      clientName: c.clientName,
      requestId: c.requestId,
      confirmationId: c.confirmationId,
    };
  }
}

function toDto(r: AuditEventRow): Plain<AuditEventDto> {
  return {
    id: r.id,
    occurred_at: r.occurred_at.toISOString(),
    actor_type: r.actor_type,
    actor_user_id: r.actor_user_id,
    actor_name: r.actor_name,
    actor_email: r.actor_email,
    token_id: r.token_id,
    token_name: r.token_name,
    token_kind: r.token_kind,
    channel: r.channel,
    client_name: r.client_name,
    action: r.action,
    resource_type: r.resource_type,
    resource_id: r.resource_id,
    resource_label: r.resource_label,
    changes: r.changes,
    request_id: r.request_id,
    trace_id: r.trace_id,
    confirmation_id: r.confirmation_id,
  };
}
