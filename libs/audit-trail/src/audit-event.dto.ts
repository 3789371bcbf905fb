import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { Input, Out, PageOf, TimeRangeQueryDto } from '@app/rest-contract';
import {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_TYPES,
  AUDIT_CHANNELS,
  AUDIT_RESOURCE_TYPES,
} from './audit-vocabulary.js';

/** `GET /v1/audit-events` filters (+ `limit`, `cursor`). */
export class ListAuditEventsQueryDto extends TimeRangeQueryDto {
  @Input.optional({
    format: 'uuid',
    description:
      'Only events by this person: a user id (get_current_context shows yours; events show actor_user_id).',
  })
  @IsOptional()
  @IsUUID('all')
  actor?: string;

  @Input.optional({
    enum: AUDIT_ACTIONS,
    description: 'Only events of this action, e.g. portal_user.created.',
  })
  @IsOptional()
  @IsIn(AUDIT_ACTIONS)
  action?: string;

  @Input.optional({
    enum: AUDIT_RESOURCE_TYPES,
    description: 'Only events about this kind of record.',
  })
  @IsOptional()
  @IsIn(AUDIT_RESOURCE_TYPES)
  resource_type?: string;

  @Input.optional({
    format: 'uuid',
    description:
      'Only events about this record: its id (e.g. from list_portal_users or list_accounts).',
  })
  @IsOptional()
  @IsUUID('all')
  resource_id?: string;

  @Input.optional({
    enum: AUDIT_CHANNELS,
    description:
      'Only events that came through this channel: api (REST), mcp (an agent) or cli (the admin command).',
  })
  @IsOptional()
  @IsIn(AUDIT_CHANNELS)
  channel?: string;

  @Input.optionalText({
    maxLength: 200,
    description:
      "Text (any case) in the actor's name or e-mail, the token's name, the resource label or the client name: finds a deleted portal user's events by e-mail.",
  })
  q?: string;
}

/** `GET /v1/audit-events/export`: a time range (`since`, `until`) and `limit` / `cursor`. */
export class ExportAuditEventsQueryDto extends TimeRangeQueryDto {}

export class AuditEventDto {
  @Out.uuid() id: string;
  @Out.dateTime() occurred_at: string;
  @Out.enum(AUDIT_ACTOR_TYPES, {
    description:
      '`member`: a person of the organisation, through a token; `portal_user`: accepting their own invitation; `admin_command`: `npm run admin` (an operator; no person, no token).',
  })
  actor_type: string;
  @Out.uuid({ nullable: true, description: 'The person (user id) who acted.' }) actor_user_id:
    string | null;
  @Out.string({
    nullable: true,
    description:
      "The actor's display name when the event was recorded (a member, or the portal user accepting their invitation).",
  })
  actor_name: string | null;
  @Out.string({
    nullable: true,
    description: "The actor's e-mail when the event was recorded.",
  })
  actor_email: string | null;
  @Out.uuid({ nullable: true, description: 'The token used (its id, never its secret).' })
  token_id: string | null;
  @Out.string({ nullable: true, description: "The token's name when the event was recorded." })
  token_name: string | null;
  @Out.enum(['personal', 'oauth', 'session'], {
    nullable: true,
    description:
      '`personal` (pat_…), `oauth` (oat_…, an MCP client a person authorized) or `session` (a person signed in to the admin console).',
  })
  token_kind: string | null;
  @Out.enum(AUDIT_CHANNELS, {
    description:
      'Set by the server from how the request arrived (`cli`: the admin command); never client input.',
  })
  channel: string;
  @Out.string({ nullable: true, description: 'The MCP client (or token) name.' }) client_name:
    string | null;
  // Plain strings here: their values are listed once, by the `action` and `resource_type` filters
  // (each new kind of event would otherwise grow tools/list twice).
  @Out.string({
    description: 'What happened, `<resource>.<verb>`: a value of the `action` filter.',
  })
  action: string;
  @Out.string({ description: 'The kind of record: a value of the `resource_type` filter.' })
  resource_type: string;
  @Out.uuid() resource_id: string;
  @Out.string({
    nullable: true,
    description:
      "How a person recognises the resource, as it was: a portal user's or member's e-mail, an account's or token's name.",
  })
  resource_label: string | null;
  @Out.object({ description: 'Changed fields: `{ "field": { "before": …, "after": … } }`.' })
  changes: Record<string, { before: unknown; after: unknown }>;
  @Out.string({ nullable: true }) request_id: string | null;
  @Out.string({
    nullable: true,
    description:
      'The trace of the request that wrote the event (W3C trace id); `null` when the server was not tracing.',
  })
  trace_id: string | null;
  @Out.string({
    nullable: true,
    description: 'The MCP confirmation that authorized this write, if any.',
  })
  confirmation_id: string | null;
}

export class AuditEventPageDto extends PageOf(AuditEventDto) {}

export class AuditEventExportPageDto {
  @Out.nested(() => AuditEventDto, { isArray: true, description: 'Oldest first.' })
  data: AuditEventDto[];
  @Out.string({
    nullable: true,
    description:
      'Where this page ended: pass it back for what came after, now or later (it is kept when a page is empty); `null` only before any event was seen.',
  })
  next_cursor: string | null;
}
