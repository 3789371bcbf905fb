import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { AuditEventDto } from '@app/audit-trail';
import {
  CONFIRMATION_KINDS,
  CONFIRMATION_STATUSES,
  type ConfirmationStatus,
} from '@app/mcp-confirmations';
import { Input, Out, PageOf, TimeRangeQueryDto } from '@app/rest-contract';
import { ToolCallDto } from './tool-call.dto.js';

export class ConfirmationIdParamsDto {
  @ApiProperty({ format: 'uuid', description: 'Confirmation id.' })
  @IsUUID('all')
  id: string;
}

/** `GET /v1/mcp/confirmations` filters (+ `limit`, `cursor`). */
export class ListConfirmationsQueryDto extends TimeRangeQueryDto {
  @ApiPropertyOptional({
    enum: CONFIRMATION_STATUSES,
    description: 'A lapsed pending confirmation is `expired`.',
  })
  @IsOptional()
  @IsIn(CONFIRMATION_STATUSES)
  status?: ConfirmationStatus;

  @Input.optionalText({
    description: 'Only confirmations of this tool (exact name).',
    maxLength: 200,
  })
  tool?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'Only confirmations asked of this person (user id).',
  })
  @IsOptional()
  @IsUUID('all')
  user?: string;
}

export class ConfirmationDto {
  @Out.uuid() id: string;
  @Out.string() tool: string;
  @Out.enum(CONFIRMATION_STATUSES, {
    description: 'A pending confirmation past `expires_at` shows as `expired`.',
  })
  status: string;
  @Out.string({ description: 'What the destructive tool acts on, e.g. `portal_user`.' })
  target_type: string;
  @Out.string() target_id: string;
  @Out.string({ description: 'The message as shown to the person.' }) message: string;
  @Out.string() protocol_version: string;
  @Out.string({ nullable: true, description: 'The MCP client (or token) name.' }) client_name:
    string | null;
  @Out.uuid({ description: 'The person asked (user id).' }) user_id: string;
  @Out.uuid({ description: 'The token the call came with (its id).' }) token_id: string;
  @Out.dateTime() created_at: string;
  @Out.dateTime() expires_at: string;
  @Out.dateTime({
    nullable: true,
    description:
      'When the person accepted or declined (`verified`: when the confirmation was used, or declined); null otherwise.',
  })
  decided_at: string | null;
  @Out.uuid({ nullable: true, description: 'The MCP tool call this confirmation authorized.' })
  tool_call_id: string | null;
  @Out.enum(CONFIRMATION_KINDS, {
    description:
      'Where the person answers: `form`, in the client’s own form; `verified`, on this server’s page, signed in.',
  })
  mode: string;
  @Out.integer({ description: 'The version of the tool’s confirmation policy it was asked under.' })
  policy_version: number;
  @Out.dateTime({
    nullable: true,
    description: '`verified` only: when the person confirmed on the page; null otherwise.',
  })
  verified_at: string | null;
}

export class ConfirmationPageDto extends PageOf(ConfirmationDto) {}

/** A confirmation with what it led to: the tool call it authorized and the audit events it produced. */
export class ConfirmationDetailDto extends ConfirmationDto {
  @Out.nested(() => ToolCallDto, {
    nullable: true,
    description: 'The row of `tool_call_id`; null when none.',
  })
  tool_call: ToolCallDto | null;
  @Out.nested(() => AuditEventDto, {
    isArray: true,
    description: 'Audit events carrying this confirmation id, oldest first.',
  })
  audit_events: AuditEventDto[];
}
