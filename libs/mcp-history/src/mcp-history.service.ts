import { Injectable } from '@nestjs/common';
import { ApprovalRequests, visibleApprovalStatus, type Approval } from '@app/approvals';
import { AuditTrail } from '@app/audit-trail';
import { AppConfig } from '@app/config';
import { DomainError } from '@app/errors';
import { IdentityRepository, RequestContext, TokensRepository } from '@app/identity';
import { ConfirmationService, visibleStatus, type McpConfirmation } from '@app/mcp-confirmations';
import {
  readListedPage,
  readNewestFirstPage,
  assertTimeRange,
  untilNotAfterSince,
  type Page,
  type Plain,
} from '@app/rest-contract';
import type {
  ConfirmationDetailDto,
  ConfirmationDto,
  ListConfirmationsQueryDto,
} from './confirmation-history.dto.js';
import type {
  ApprovalChainDto,
  ApprovalDecidedDto,
  ApprovalExecutedDto,
  ToolCallDetailDto,
  ToolCallFacetsDto,
  ToolCallSeriesDto,
  ToolCallSeriesQueryDto,
} from './tool-call-activity.dto.js';
import { outcomeOf, TOOL_CALL_OUTCOMES } from './tool-call-outcome.js';
import type { ListToolCallsQueryDto, ToolCallDto } from './tool-call.dto.js';
import { ToolCallsRepository, type StoredToolCall } from './tool-calls.repository.js';

/** The per-minute series spans at most a day (1,440 points): a chart, not an export. */
const MAX_SERIES_MS = 24 * 60 * 60 * 1000;
const DEFAULT_SERIES_MS = 60 * 60 * 1000;
/** Facets (filter values and names) cover the last 30 days of calls. */
const FACETS_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The organisation admins' view of MCP activity (`audit.read`): the call history and the
 * confirmation history, with filters and cursor pagination. Rows of another organisation are
 * indistinguishable from missing ones (404).
 */
@Injectable()
export class McpHistoryService {
  constructor(
    private readonly toolCalls: ToolCallsRepository,
    private readonly confirmations: ConfirmationService,
    private readonly context: RequestContext,
    private readonly auditTrail: AuditTrail,
    private readonly identity: IdentityRepository,
    private readonly tokens: TokensRepository,
    private readonly config: AppConfig,
    private readonly approvals: ApprovalRequests,
  ) {}

  async listToolCalls(query: ListToolCallsQueryDto): Promise<Page<Plain<ToolCallDto>>> {
    assertTimeRange(query);
    const organizationId = this.context.organizationId;
    // A request's calls lie in its own time range: from a moment before it was asked. Requests are
    // kept as long as their organisation (docs/operations.md), so one this organisation does not
    // have has no calls here either, and no index is walked to find that out.
    let since = query.since;
    if (query.approval_id !== undefined) {
      const approval = await this.approvals.find(organizationId, query.approval_id);
      if (approval === undefined) return { data: [], next_cursor: null };
      since ??= callsSince(approval);
    }
    return readNewestFirstPage(
      query,
      (window) =>
        this.toolCalls.list({
          organizationId,
          tool: query.tool,
          status: query.status,
          userId: query.user,
          tokenId: query.token,
          clientName: query.client,
          approvalId: query.approval_id,
          since,
          until: query.until,
          ...window,
        }),
      toToolCallDto,
    );
  }

  /** One call with the confirmation it presented and the audit events it wrote. */
  async getToolCall(id: string): Promise<Plain<ToolCallDetailDto>> {
    const organizationId = this.context.organizationId;
    const row = await this.toolCalls.findById(organizationId, id);
    if (row === undefined) throw DomainError.notFound('Tool call');
    const [confirmation, events, approval] = await Promise.all([
      row.confirmation_id === null
        ? null
        : this.confirmations.findById(organizationId, row.confirmation_id),
      this.auditTrail.eventsOfRequest(organizationId, row.request_id),
      row.approval_id === null ? null : this.approvalChain(organizationId, row.approval_id),
    ]);
    return {
      ...toToolCallDto(row),
      approval,
      confirmation: confirmation === null ? null : toConfirmationDto(confirmation, new Date()),
      audit_events: events,
      trace_url: traceUrl(this.config.traceUrlTemplate, row.trace_id),
    };
  }

  /** Calls per minute by outcome and their p95 duration, over at most a day. */
  async toolCallSeries(query: ToolCallSeriesQueryDto): Promise<Plain<ToolCallSeriesDto>> {
    const until = query.until === undefined ? Date.now() : Date.parse(query.until);
    const since = query.since === undefined ? until - DEFAULT_SERIES_MS : Date.parse(query.since);
    if (since >= until) throw untilNotAfterSince();
    if (until - since > MAX_SERIES_MS)
      throw DomainError.validation(
        [{ field: 'since', message: 'the window may span at most 24 hours' }],
        'Validation failed: the per-minute series spans at most 24 hours',
      );
    const rows = await this.toolCalls.perMinute({
      organizationId: this.context.organizationId,
      tool: query.tool,
      status: query.status,
      userId: query.user,
      tokenId: query.token,
      clientName: query.client,
      since: new Date(since).toISOString(),
      until: new Date(until).toISOString(),
    });
    return {
      data: rows.map((r) => ({
        minute: r.minute.toISOString(),
        ok: r.ok,
        tool_error: r.tool_error,
        refused: r.refused,
        protocol_error: r.protocol_error,
        p95_ms: r.p95_ms,
      })),
    };
  }

  /** What the history's filters can be set to, with names for the people and tokens. */
  async toolCallFacets(): Promise<Plain<ToolCallFacetsDto>> {
    const organizationId = this.context.organizationId;
    const since = new Date(Date.now() - FACETS_WINDOW_MS).toISOString();
    const facets = await this.toolCalls.facets(organizationId, since);
    const [people, tokens] = await Promise.all([
      this.identity.describePeople(facets.user_ids),
      this.tokens.describe(organizationId, facets.token_ids),
    ]);
    return {
      outcomes: [...TOOL_CALL_OUTCOMES],
      tools: facets.tools,
      statuses: facets.statuses,
      clients: facets.clients,
      people: people.map((p) => ({ user_id: p.id, name: p.name, email: p.email })),
      tokens: tokens.map((t) => ({ token_id: t.id, name: t.name, kind: t.kind })),
    };
  }

  async listConfirmations(query: ListConfirmationsQueryDto): Promise<Page<Plain<ConfirmationDto>>> {
    assertTimeRange(query);
    const now = new Date();
    return readListedPage(
      query,
      (window) =>
        this.confirmations.list({
          organizationId: this.context.organizationId,
          status: query.status,
          tool: query.tool,
          userId: query.user,
          since: query.since,
          until: query.until,
          ...window,
        }),
      (c) => toConfirmationDto(c, now),
    );
  }

  async getConfirmation(id: string): Promise<Plain<ConfirmationDetailDto>> {
    const organizationId = this.context.organizationId;
    const confirmation = await this.confirmations.findById(organizationId, id);
    if (confirmation === null) throw DomainError.notFound('Confirmation');
    const [toolCall, events] = await Promise.all([
      confirmation.toolCallId === null
        ? undefined
        : this.toolCalls.findById(organizationId, confirmation.toolCallId),
      this.auditTrail.eventsOfConfirmation(organizationId, id),
    ]);
    return {
      ...toConfirmationDto(confirmation, new Date()),
      tool_call: toolCall === undefined ? null : toToolCallDto(toolCall),
      audit_events: events,
    };
  }

  /**
   * The approval request as asked → decided → executed, the executed call found among the
   * request's own calls (by the request id it ran in; they are recorded from the moment it was
   * asked, so the time index bounds the search). Null when the organisation has no such request.
   */
  private async approvalChain(
    organizationId: string,
    id: string,
  ): Promise<Plain<ApprovalChainDto> | null> {
    const a = await this.approvals.find(organizationId, id);
    if (a === undefined) return null;
    let toolCallId: string | null = null;
    if (a.executedRequestId !== null) {
      const calls = await this.toolCalls.list({
        organizationId,
        approvalId: a.id,
        since: callsSince(a),
        take: CHAIN_CALLS_MAX,
      });
      toolCallId = calls.find((c) => c.request_id === a.executedRequestId)?.id ?? null;
    }
    return toApprovalChain(a, toolCallId, new Date());
  }
}

/** How far before a request's creation its first call may have been received. */
const CHAIN_CLOCK_MARGIN_MS = 60_000;
/** A request's calls looked through for the one that ran (retries of one call: a handful). */
const CHAIN_CALLS_MAX = 200;

/** The earliest a request's first call can be stamped: it is received a moment before it asks. */
function callsSince(a: Approval): string {
  return new Date(a.createdAt.getTime() - CHAIN_CLOCK_MARGIN_MS).toISOString();
}

/** Where the second admin decided, in words: the console's page, or the API with which token. */
function decidedOn(a: Approval): string {
  if (a.decidedVia === 'console') return "the admin console's Approvals page";
  if (a.decidedVia === null) return 'not recorded (decided before this server kept where)';
  const route = 'the REST API (POST /v1/mcp/approvals/{id}/approve|deny)';
  return a.decidedTokenName === null
    ? route
    : `${route} with the personal token «${a.decidedTokenName}»`;
}

export function toApprovalChain(
  a: Approval,
  toolCallId: string | null,
  now: Date,
): Plain<ApprovalChainDto> {
  return {
    id: a.id,
    status: visibleApprovalStatus(a, now),
    expires_at: a.expiresAt.toISOString(),
    requested: {
      at: a.createdAt.toISOString(),
      user_id: a.userId,
      name: a.requesterName,
      client_name: a.clientName,
    },
    decided: decidedOf(a),
    executed: executedOf(a, toolCallId),
  };
}

function decidedOf(a: Approval): Plain<ApprovalDecidedDto> | null {
  if (a.decidedAt === null || a.decidedBy === null) return null;
  return {
    // An approved request stays approved once used or lapsed; only a denial says denied.
    decision: a.status === 'denied' ? 'denied' : 'approved',
    at: a.decidedAt.toISOString(),
    user_id: a.decidedBy,
    name: a.decidedByName,
    reason: a.reason,
    via: a.decidedVia,
    on: decidedOn(a),
  };
}

function executedOf(a: Approval, toolCallId: string | null): Plain<ApprovalExecutedDto> | null {
  if (a.executedAt === null || a.executedRequestId === null) return null;
  return {
    at: a.executedAt.toISOString(),
    request_id: a.executedRequestId,
    tool_call_id: toolCallId,
  };
}

/** A trace id in the trace viewer's URL template (the id is 32 hex digits: the table checks it). */
function traceUrl(template: string | undefined, traceId: string | null): string | null {
  return template === undefined || traceId === null
    ? null
    : template.replaceAll('{traceId}', traceId);
}

function toToolCallDto(r: StoredToolCall): Plain<ToolCallDto> {
  return {
    id: r.id,
    tool: r.tool,
    status: r.status,
    outcome: outcomeOf(r.status),
    is_error: r.is_error,
    era: r.era,
    protocol_version: r.protocol_version,
    client_name: r.client_name,
    user_id: r.user_id,
    token_id: r.token_id,
    duration_ms: r.duration_ms,
    confirmation_id: r.confirmation_id,
    approval_id: r.approval_id,
    request_id: r.request_id,
    trace_id: r.trace_id,
    correlation_id: r.correlation_id,
    arguments_digest: r.arguments_digest,
    created_at: r.created_at.toISOString(),
  };
}

function toConfirmationDto(c: McpConfirmation, now: Date): Plain<ConfirmationDto> {
  return {
    id: c.id,
    tool: c.tool,
    status: visibleStatus(c, now),
    target_type: c.targetType,
    target_id: c.targetId,
    message: c.message,
    protocol_version: c.protocolVersion,
    client_name: c.clientName,
    user_id: c.userId,
    token_id: c.tokenId,
    created_at: c.createdAt.toISOString(),
    expires_at: c.expiresAt.toISOString(),
    decided_at: c.decidedAt === null ? null : c.decidedAt.toISOString(),
    tool_call_id: c.toolCallId,
    mode: c.mode,
    policy_version: c.policyVersion,
    verified_at: c.verifiedAt === null ? null : c.verifiedAt.toISOString(),
  };
}
