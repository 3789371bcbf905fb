import { IsIn, IsISO8601, IsOptional, IsUUID } from 'class-validator';
import { Input, Out, PageQueryDto } from '@app/rest-contract';
import {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_TYPES,
  AUDIT_CHANNELS,
  AUDIT_RESOURCE_TYPES,
} from './audit-vocabulary.js';

/** `GET /v1/audit-events` filters (+ `limit`, `cursor`). */
export class ListAuditEventsQueryDto extends PageQueryDto {
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
    description: 'Only events that came through this channel: api (REST) or mcp (an agent).',
  })
  @IsOptional()
  @IsIn(AUDIT_CHANNELS)
  channel?: string;

  @Input.optional({
    format: 'date-time',
    description: 'Only events at or after this instant (ISO 8601, e.g. 2026-01-31T00:00:00Z).',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  since?: string;

  @Input.optional({
    format: 'date-time',
    description: 'Only events before this instant (ISO 8601); must be after since.',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  until?: string;
}

export class AuditEventDto {
  @Out.uuid() id: string;
  @Out.dateTime() occurred_at: string;
  @Out.enum(AUDIT_ACTOR_TYPES, {
    description:
      '`member`: a person of the organisation, through a token; `portal_user`: accepting their own invitation.',
  })
  actor_type: string;
  @Out.uuid({ nullable: true, description: 'The person (user id) who acted.' }) actor_user_id:
    string | null;
  @Out.uuid({ nullable: true, description: 'The token used (its id, never its secret).' })
  token_id: string | null;
  @Out.enum(AUDIT_CHANNELS, {
    description: 'Set by the server from how the request arrived; never client input.',
  })
  channel: string;
  @Out.string({ nullable: true, description: 'The MCP client (or token) name.' }) client_name:
    string | null;
  @Out.enum(AUDIT_ACTIONS) action: string;
  @Out.enum(AUDIT_RESOURCE_TYPES) resource_type: string;
  @Out.uuid() resource_id: string;
  @Out.object({ description: 'Changed fields: `{ "field": { "before": …, "after": … } }`.' })
  changes: Record<string, { before: unknown; after: unknown }>;
  @Out.string({ nullable: true }) request_id: string | null;
  @Out.string({
    nullable: true,
    description: 'The MCP confirmation that authorized this write, if any.',
  })
  confirmation_id: string | null;
}

export class AuditEventPageDto {
  @Out.nested(() => AuditEventDto, { isArray: true }) data: AuditEventDto[];
  @Out.string({ nullable: true, description: 'Cursor of the next page; `null` on the last page.' })
  next_cursor: string | null;
}
