import { Controller, Get, Param, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresAccess } from '@app/access';
import {
  ApiErrors,
  ApiValidationPipe,
  AUTH_ERROR_CODES,
  type Page,
  type Plain,
} from '@app/rest-contract';
import {
  ConfirmationDetailDto,
  ConfirmationIdParamsDto,
  ConfirmationPageDto,
  ListConfirmationsQueryDto,
  type ConfirmationDto,
} from './confirmation-history.dto.js';
import { McpHistoryService } from './mcp-history.service.js';
import {
  ToolCallDetailDto,
  ToolCallFacetsDto,
  ToolCallSeriesDto,
  ToolCallSeriesQueryDto,
} from './tool-call-activity.dto.js';
import {
  ListToolCallsQueryDto,
  ToolCallDto,
  ToolCallIdParamsDto,
  ToolCallPageDto,
} from './tool-call.dto.js';

const AUDIT_READ = {
  scope: { resource: 'audit', access: 'read' },
  permission: 'audit.read',
} as const;

/** MCP call and confirmation history for organisation admins. */
@ApiTags('mcp-history')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller('v1/mcp')
export class McpHistoryController {
  constructor(private readonly history: McpHistoryService) {}

  @Get('tool-calls')
  @RequiresAccess(AUDIT_READ)
  @ApiOperation({
    operationId: 'listMcpToolCalls',
    summary: 'MCP tool calls of the organisation, newest first',
  })
  @ApiOkResponse({ type: ToolCallPageDto })
  @ApiErrors('VALIDATION_ERROR', ...AUTH_ERROR_CODES)
  listToolCalls(@Query() query: ListToolCallsQueryDto): Promise<Page<Plain<ToolCallDto>>> {
    return this.history.listToolCalls(query);
  }

  @Get('tool-calls/per-minute')
  @RequiresAccess(AUDIT_READ)
  @ApiOperation({
    operationId: 'getMcpToolCallSeries',
    summary: 'Tool calls per minute by outcome, with the p95 duration (at most 24 hours)',
  })
  @ApiOkResponse({ type: ToolCallSeriesDto })
  @ApiErrors('VALIDATION_ERROR', ...AUTH_ERROR_CODES)
  toolCallSeries(@Query() query: ToolCallSeriesQueryDto): Promise<Plain<ToolCallSeriesDto>> {
    return this.history.toolCallSeries(query);
  }

  @Get('tool-calls/facets')
  @RequiresAccess(AUDIT_READ)
  @ApiOperation({
    operationId: 'getMcpToolCallFacets',
    summary: 'The tools, statuses, clients, people and tokens of the last 30 days of calls',
  })
  @ApiOkResponse({ type: ToolCallFacetsDto })
  @ApiErrors(...AUTH_ERROR_CODES)
  toolCallFacets(): Promise<Plain<ToolCallFacetsDto>> {
    return this.history.toolCallFacets();
  }

  @Get('tool-calls/:id')
  @RequiresAccess(AUDIT_READ)
  @ApiOperation({
    operationId: 'getMcpToolCall',
    summary: 'One MCP tool call, the confirmation it presented and the audit events it wrote',
  })
  @ApiOkResponse({ type: ToolCallDetailDto })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', ...AUTH_ERROR_CODES)
  getToolCall(@Param() params: ToolCallIdParamsDto): Promise<Plain<ToolCallDetailDto>> {
    return this.history.getToolCall(params.id);
  }

  @Get('confirmations')
  @RequiresAccess(AUDIT_READ)
  @ApiOperation({
    operationId: 'listMcpConfirmations',
    summary: 'Confirmations asked by MCP tools, newest first',
  })
  @ApiOkResponse({ type: ConfirmationPageDto })
  @ApiErrors('VALIDATION_ERROR', ...AUTH_ERROR_CODES)
  listConfirmations(
    @Query() query: ListConfirmationsQueryDto,
  ): Promise<Page<Plain<ConfirmationDto>>> {
    return this.history.listConfirmations(query);
  }

  @Get('confirmations/:id')
  @RequiresAccess(AUDIT_READ)
  @ApiOperation({
    operationId: 'getMcpConfirmation',
    summary: 'One confirmation, the tool call it authorized and the audit events it produced',
  })
  @ApiOkResponse({ type: ConfirmationDetailDto })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', ...AUTH_ERROR_CODES)
  getConfirmation(@Param() params: ConfirmationIdParamsDto): Promise<Plain<ConfirmationDetailDto>> {
    return this.history.getConfirmation(params.id);
  }
}
