import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { AuditEventDto } from '@app/audit-trail';
import { Out, Trim } from '@app/rest-contract';
import { ConfirmationDto } from './confirmation-history.dto.js';
import { OutNumber } from './out-number.decorator.js';
import { TOOL_CALL_OUTCOMES } from './tool-call-outcome.js';
import { ToolCallDto } from './tool-call.dto.js';

const ISO_MESSAGE = { message: 'must be an ISO 8601 date-time' };

/** A tool call with what it used and what it did: its confirmation and its audit events. */
export class ToolCallDetailDto extends ToolCallDto {
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
}

/** `GET /v1/mcp/tool-calls/per-minute`: the list's filters over a window of at most a day. */
export class ToolCallSeriesQueryDto {
  @ApiPropertyOptional({ description: 'Only calls of this tool (exact name).', maxLength: 200 })
  @IsOptional()
  @Trim()
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(200)
  tool?: string;

  @ApiPropertyOptional({ description: 'Only calls with this status.', maxLength: 100 })
  @IsOptional()
  @Trim()
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(100)
  status?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only calls by this person (user id).' })
  @IsOptional()
  @IsUUID('all')
  user?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only calls made with this token.' })
  @IsOptional()
  @IsUUID('all')
  token?: string;

  @ApiPropertyOptional({ description: 'Only calls from this MCP client (exact).', maxLength: 200 })
  @IsOptional()
  @Trim()
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(200)
  client?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Start of the window (default: an hour before `until`).',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, ISO_MESSAGE)
  since?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'End of the window (default: now).' })
  @IsOptional()
  @IsISO8601({ strict: true }, ISO_MESSAGE)
  until?: string;
}

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
