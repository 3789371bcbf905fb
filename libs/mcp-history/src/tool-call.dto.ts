import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { ERA_LABELS } from '@app/mcp-transport';
import { Input, Out, PageOf, TimeRangeQueryDto } from '@app/rest-contract';
import { OutNumber } from './out-number.decorator.js';
import type { ToolCallFields } from './tool-call-fields.js';
import { TOOL_CALL_OUTCOMES, type ToolCallOutcome } from './tool-call-outcome.js';

/** The eras a call is recorded under (the transport's labels). */
export const TOOL_CALL_ERAS = ERA_LABELS;

export class ToolCallIdParamsDto {
  @ApiProperty({ format: 'uuid', description: 'Tool call id.' })
  @IsUUID('all')
  id: string;
}

// TypeScript recognises a mixin only when the base's constructor takes `...args: any[]`.
// oxlint-disable-next-line typescript/no-explicit-any
type Constructor<T = object> = abstract new (...args: any[]) => T;

/**
 * The five filters of the tool-call history, shared by the list and the per-minute series (one
 * declaration, so the two cannot drift): added to a base that brings the time bounds.
 */
export function withToolCallFilters<TBase extends Constructor>(Base: TBase) {
  abstract class ToolCallFilters extends Base {
    @Input.optionalText({ description: 'Only calls of this tool (exact name).', maxLength: 200 })
    tool?: string;

    @Input.optionalText({
      description:
        'Only calls with this status: `ok`, `input_required`, an error code, or `rpc_error:<code>`.',
      maxLength: 100,
    })
    status?: string;

    @ApiPropertyOptional({ format: 'uuid', description: 'Only calls by this person (user id).' })
    @IsOptional()
    @IsUUID('all')
    user?: string;

    @ApiPropertyOptional({
      format: 'uuid',
      description: 'Only calls made with this token (token id).',
    })
    @IsOptional()
    @IsUUID('all')
    token?: string;

    @Input.optionalText({
      description: 'Only calls from this MCP client (its name, exact).',
      maxLength: 200,
    })
    client?: string;
  }
  return ToolCallFilters;
}

/** `GET /v1/mcp/tool-calls` filters (+ `since`, `until`, `limit`, `cursor`). */
export class ListToolCallsQueryDto extends withToolCallFilters(TimeRangeQueryDto) {
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'Only calls that ran under or were refused for this approval request (policy `approval`). Without `since`, from a minute before the request was asked (its calls cannot be older); a request this organisation does not have lists nothing.',
  })
  @IsOptional()
  @IsUUID('all')
  approval_id?: string;
}

export class ToolCallDto implements ToolCallFields<string> {
  @Out.uuid() id: string;
  @Out.string({ description: 'The tool name (`unknown` for a name not in the registry).' })
  tool: string;
  @Out.string({ description: '`ok`, `input_required`, an error code, or `rpc_error:<code>`.' })
  status: string;
  @Out.enum(TOOL_CALL_OUTCOMES, {
    description:
      '`ok` (also `input_required`), `tool_error`, `refused` (authorization or confirmation), `protocol_error` (JSON-RPC).',
  })
  outcome: ToolCallOutcome;
  @Out.boolean({ description: 'Whether the call ended in a tool error result.' }) is_error: boolean;
  @Out.enum(TOOL_CALL_ERAS, { description: 'The MCP protocol era of the request.' }) era: string;
  @Out.string() protocol_version: string;
  @Out.string({ nullable: true, description: 'The MCP client (or token) name.' }) client_name:
    string | null;
  @Out.uuid({ description: 'The person (user id) behind the token.' }) user_id: string;
  @Out.uuid({ description: 'The token used (its id, never its secret).' }) token_id: string;
  @OutNumber({ description: 'Server-side duration in milliseconds.' }) duration_ms: number;
  @Out.uuid({ nullable: true, description: 'The confirmation presented with the call, if any.' })
  confirmation_id: string | null;
  @Out.uuid({
    nullable: true,
    description:
      'The approval request (policy `approval`) the call ran under or was refused for (`approval_pending`, `approval_denied`, `approval_expired`, `confirmation_replayed`); null otherwise.',
  })
  approval_id: string | null;
  @Out.string({
    description:
      'The id the server issued for the HTTP request (its X-Request-Id answer header); the audit events of the call carry the same.',
  })
  request_id: string;
  @Out.string({
    nullable: true,
    description:
      "The client's own X-Request-Id, kept for correlation with the client's logs only: anyone may send any id, so nothing is linked by it.",
  })
  correlation_id: string | null;
  @Out.string({
    nullable: true,
    description:
      'The trace the call ran in (W3C trace id, 32 hex digits); `null` when the server was not tracing.',
  })
  trace_id: string | null;
  @Out.string({
    nullable: true,
    description: 'sha-256 hex of the canonical JSON arguments (never the arguments).',
  })
  arguments_digest: string | null;
  @Out.dateTime() created_at: string;
}

export class ToolCallPageDto extends PageOf(ToolCallDto) {}
