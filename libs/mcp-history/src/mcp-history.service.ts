import { Injectable } from '@nestjs/common';
import { AuditTrail } from '@app/audit-trail';
import { DomainError } from '@app/errors';
import { RequestContext } from '@app/identity';
import { ConfirmationLedger, type ConfirmationStatus } from '@app/mcp-confirmations';
import {
  DEFAULT_PAGE_LIMIT,
  decodeCursor,
  toPage,
  type Page,
  type Plain,
} from '@app/rest-contract';
import type {
  ConfirmationDetailDto,
  ConfirmationDto,
  ListConfirmationsQueryDto,
} from './confirmation-history.dto.js';
import {
  ConfirmationHistoryRepository,
  type ConfirmationView,
} from './confirmation-history.repository.js';
import type { ListToolCallsQueryDto, ToolCallDto } from './tool-call.dto.js';
import { ToolCallsRepository, type StoredToolCall } from './tool-calls.repository.js';

/** A keyset cursor position as the repositories write it: `created_at` with microseconds, and a uuid. */

/**
 * The organisation admins' view of MCP activity (`audit.read`): the call history and the
 * confirmation history, with filters and cursor pagination. Rows of another organisation are
 * indistinguishable from missing ones (404).
 */
@Injectable()
export class McpHistoryService {
  constructor(
    private readonly toolCalls: ToolCallsRepository,
    private readonly confirmations: ConfirmationHistoryRepository,
    private readonly ledger: ConfirmationLedger,
    private readonly context: RequestContext,
    private readonly auditTrail: AuditTrail,
  ) {}

  async listToolCalls(query: ListToolCallsQueryDto): Promise<Page<Plain<ToolCallDto>>> {
    assertTimeRange(query);
    const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
    const rows = await this.toolCalls.list({
      organizationId: this.organizationId,
      tool: query.tool,
      status: query.status,
      userId: query.user,
      tokenId: query.token,
      clientName: query.client,
      since: query.since,
      until: query.until,
      after: keysetPosition(query.cursor),
      take: limit + 1,
    });
    return toPage(rows, limit, (r) => [r.cursor_ts, r.id], toToolCallDto);
  }

  async getToolCall(id: string): Promise<Plain<ToolCallDto>> {
    const row = await this.toolCalls.findById(this.organizationId, id);
    if (row === undefined) throw DomainError.notFound('Tool call');
    return toToolCallDto(row);
  }

  async listConfirmations(query: ListConfirmationsQueryDto): Promise<Page<Plain<ConfirmationDto>>> {
    assertTimeRange(query);
    const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
    const rows = await this.confirmations.list({
      organizationId: this.organizationId,
      status: query.status,
      tool: query.tool,
      userId: query.user,
      since: query.since,
      until: query.until,
      after: keysetPosition(query.cursor),
      take: limit + 1,
    });
    const now = new Date();
    return toPage(
      rows,
      limit,
      (r) => [r.cursor_ts, r.id],
      (r) => toConfirmationDto(r, now),
    );
  }

  async getConfirmation(id: string): Promise<Plain<ConfirmationDetailDto>> {
    const organizationId = this.organizationId;
    const confirmation = await this.ledger.findById(organizationId, id);
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

  private get organizationId(): string {
    return this.context.principal.organizationId;
  }
}

function assertTimeRange(query: { since?: string; until?: string }): void {
  if (
    query.since !== undefined &&
    query.until !== undefined &&
    Date.parse(query.since) >= Date.parse(query.until)
  ) {
    throw DomainError.validation(
      [{ field: 'until', message: 'must be after since' }],
      'Validation failed: until must be after since',
    );
  }
}

/** The decoded cursor (a VALIDATION_ERROR unless it is a position these lists wrote). */
function keysetPosition(cursor: string | undefined): string[] | undefined {
  return cursor === undefined ? undefined : decodeCursor(cursor);
}

/** What the admin sees: a pending confirmation past its expiry is expired (the ledger marks it lazily). */
function visibleStatus(c: ConfirmationView, now: Date): ConfirmationStatus {
  return c.status === 'pending' && c.expiresAt.getTime() <= now.getTime() ? 'expired' : c.status;
}

function toToolCallDto(r: StoredToolCall): Plain<ToolCallDto> {
  return {
    id: r.id,
    tool: r.tool,
    status: r.status,
    is_error: r.is_error,
    era: r.era,
    protocol_version: r.protocol_version,
    client_name: r.client_name,
    user_id: r.user_id,
    token_id: r.token_id,
    duration_ms: r.duration_ms,
    confirmation_id: r.confirmation_id,
    request_id: r.request_id,
    arguments_digest: r.arguments_digest,
    created_at: r.created_at.toISOString(),
  };
}

function toConfirmationDto(c: ConfirmationView, now: Date): Plain<ConfirmationDto> {
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
  };
}
