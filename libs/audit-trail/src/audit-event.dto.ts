import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { Out, TimeRangeQueryDto } from '@app/rest-contract';
import {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_TYPES,
  AUDIT_CHANNELS,
  AUDIT_RESOURCE_TYPES,
} from './audit-vocabulary.js';

/** `GET /v1/audit-events` filters (+ `limit`, `cursor`). */
export class ListAuditEventsQueryDto extends TimeRangeQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only events by this person (user id).' })
  @IsOptional()
  @IsUUID('all')
  actor?: string;

  @ApiPropertyOptional({ enum: AUDIT_ACTIONS })
  @IsOptional()
  @IsIn(AUDIT_ACTIONS)
  action?: string;

  @ApiPropertyOptional({ enum: AUDIT_RESOURCE_TYPES })
  @IsOptional()
  @IsIn(AUDIT_RESOURCE_TYPES)
  resource_type?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all')
  resource_id?: string;

  @ApiPropertyOptional({
    enum: AUDIT_CHANNELS,
    description: '`api` (REST) or `mcp` (an agent through the MCP server).',
  })
  @IsOptional()
  @IsIn(AUDIT_CHANNELS)
  channel?: string;
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
