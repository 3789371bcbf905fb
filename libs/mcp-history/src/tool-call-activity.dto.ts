import { IsOptional } from 'class-validator';
import { DECIDED_VIA, type DecidedVia } from '@app/approvals';
import { AuditEventDto } from '@app/audit-trail';
import { Input, Out, Timestamp } from '@app/rest-contract';
import { ConfirmationDto } from './confirmation-history.dto.js';
import { OutNumber } from './out-number.decorator.js';
import { TOOL_CALL_OUTCOMES } from './tool-call-outcome.js';
import { ToolCallDto, withToolCallFilters } from './tool-call.dto.js';

/** Who asked for an approval, when, and from which client. */
export class ApprovalRequestedDto {
  @Out.dateTime() at: string;
  @Out.uuid({ description: 'The requester (the person whose token made the call).' })
  user_id: string;
  @Out.string({ description: 'The requester’s name as it was then.' }) name: string;
  @Out.string({ nullable: true, description: 'The MCP client the call came from.' })
  client_name: string | null;
}

/** The second admin's decision. */
export class ApprovalDecidedDto {
  @Out.enum(['approved', 'denied'] as const) decision: 'approved' | 'denied';
  @Out.dateTime() at: string;
  @Out.uuid({ description: 'The admin who decided (never the requester).' }) user_id: string;
  @Out.string({ nullable: true, description: 'Their name as it was then.' }) name: string | null;
  @Out.string({ nullable: true, description: 'The reason they gave.' }) reason: string | null;
  @Out.enum(DECIDED_VIA, {
    nullable: true,
    description:
      'Where it was decided: `console` (the admin console’s Approvals page) or `api` (`POST /v1/mcp/approvals/{id}/approve|deny` with a personal token); null for a request decided before this was recorded.',
  })
  via: DecidedVia | null;
  @Out.string({
    description:
      'The same in words, naming the personal token for a decision made through the API.',
  })
  on: string;
}

/** The call that used the approval. */
export class ApprovalExecutedDto {
  @Out.dateTime() at: string;
  @Out.string({ description: 'The request id of the call that ran (its audit events carry it).' })
  request_id: string;
  @Out.uuid({
    nullable: true,
    description:
      'That call in the history; null if its row is gone (retention) or not yet written.',
  })
  tool_call_id: string | null;
}

/** An approval request as a chain: asked → decided (by whom, where, why) → what ran. */
export class ApprovalChainDto {
  @Out.uuid() id: string;
  @Out.string({
    description: '`pending`, `approved`, `denied`, `expired`, `executed` or `superseded`.',
  })
  status: string;
  @Out.dateTime() expires_at: string;
  @Out.nested(() => ApprovalRequestedDto) requested: ApprovalRequestedDto;
  @Out.nested(() => ApprovalDecidedDto, { nullable: true, description: 'Null while undecided.' })
  decided: ApprovalDecidedDto | null;
  @Out.nested(() => ApprovalExecutedDto, { nullable: true, description: 'Null until a call ran.' })
  executed: ApprovalExecutedDto | null;
}

/** A tool call with what it used and what it did: its confirmation and its audit events. */
export class ToolCallDetailDto extends ToolCallDto {
  @Out.nested(() => ApprovalChainDto, {
    nullable: true,
    description:
      'The approval request of the call (`approval_id`) as a chain: requested, decided, executed; null when none.',
  })
  approval: ApprovalChainDto | null;
  @Out.nested(() => ConfirmationDto, {
    nullable: true,
    description: 'The confirmation presented with the call (`confirmation_id`); null when none.',
  })
  confirmation: ConfirmationDto | null;
  @Out.nested(() => AuditEventDto, {
    isArray: true,
    description: 'Audit events the call wrote (same request id), oldest first.',
  })
  audit_events: AuditEventDto[];
  @Out.string({
    nullable: true,
    description:
      'The call’s trace in the trace viewer (`TRACE_URL_TEMPLATE` with its `trace_id`); null without either.',
  })
  trace_url: string | null;
}

/** The window of the per-minute series (no paging: the series is always whole). */
class SeriesWindow {
  @Input.optional({
    format: 'date-time',
    description: 'Start of the window (RFC 3339; default: an hour before `until`).',
  })
  @IsOptional()
  @Timestamp()
  since?: string;

  @Input.optional({
    format: 'date-time',
    description: 'End of the window (RFC 3339; default: now).',
  })
  @IsOptional()
  @Timestamp()
  until?: string;
}

/** `GET /v1/mcp/tool-calls/per-minute`: the list's filters over a window of at most a day. */
export class ToolCallSeriesQueryDto extends withToolCallFilters(SeriesWindow) {}

export class MinuteBucketDto {
  @Out.dateTime({ description: 'Start of the minute (UTC).' }) minute: string;
  @Out.integer({ description: 'Calls that succeeded (or asked for a confirmation).' }) ok: number;
  @Out.integer({ description: 'Calls that ended in a tool error result.' }) tool_error: number;
  @Out.integer({ description: 'Calls refused by authorization or confirmation.' })
  refused: number;
  @Out.integer({ description: 'Calls answered with a JSON-RPC error.' }) protocol_error: number;
  @OutNumber({
    nullable: true,
    description: '95th percentile of the duration in ms; null in a minute without calls.',
  })
  p95_ms: number | null;
}

export class ToolCallSeriesDto {
  @Out.nested(() => MinuteBucketDto, {
    isArray: true,
    description: 'Every minute of the window, oldest first (empty minutes included).',
  })
  data: MinuteBucketDto[];
}

export class FacetPersonDto {
  @Out.uuid() user_id: string;
  @Out.string() name: string;
  @Out.email() email: string;
}

export class FacetTokenDto {
  @Out.uuid() token_id: string;
  @Out.string() name: string;
  @Out.enum(['personal', 'oauth']) kind: string;
}

/** The values the history's filters can take, with names for the ids. */
export class ToolCallFacetsDto {
  @Out.enumArray(TOOL_CALL_OUTCOMES, { description: 'The outcome classes, in chart order.' })
  outcomes: string[];
  @Out.stringArray({ description: 'Tools called.' }) tools: string[];
  @Out.stringArray({ description: 'Statuses recorded.' }) statuses: string[];
  @Out.stringArray({ description: 'MCP client names seen.' }) clients: string[];
  @Out.nested(() => FacetPersonDto, {
    isArray: true,
    description: 'People who called tools or were asked to confirm.',
  })
  people: FacetPersonDto[];
  @Out.nested(() => FacetTokenDto, { isArray: true, description: 'Tokens calls came with.' })
  tokens: FacetTokenDto[];
}
