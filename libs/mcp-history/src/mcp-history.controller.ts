import { Controller, Param, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, Endpoint, type ResponsesOf } from '@app/rest-contract';
import { ConfirmationIdParamsDto, ListConfirmationsQueryDto } from './confirmation-history.dto.js';
import { McpHistoryService } from './mcp-history.service.js';
import { ToolCallSeriesQueryDto } from './tool-call-activity.dto.js';
import { ListToolCallsQueryDto, ToolCallIdParamsDto } from './tool-call.dto.js';
import { MCP_HISTORY_ENDPOINTS } from './mcp-history.endpoints.js';

/** What each endpoint answers, from its contract (the input DTOs are named for the pipe). */
type Responses = ResponsesOf<typeof MCP_HISTORY_ENDPOINTS>;

/** MCP call and confirmation history for organisation admins. */
@ApiTags('mcp-history')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class McpHistoryController {
  constructor(private readonly history: McpHistoryService) {}

  @Endpoint(MCP_HISTORY_ENDPOINTS.listToolCalls)
  listToolCalls(@Query() query: ListToolCallsQueryDto): Promise<Responses['listToolCalls']> {
    return this.history.listToolCalls(query);
  }

  @Endpoint(MCP_HISTORY_ENDPOINTS.toolCallSeries)
  toolCallSeries(@Query() query: ToolCallSeriesQueryDto): Promise<Responses['toolCallSeries']> {
    return this.history.toolCallSeries(query);
  }

  @Endpoint(MCP_HISTORY_ENDPOINTS.toolCallFacets)
  toolCallFacets(): Promise<Responses['toolCallFacets']> {
    return this.history.toolCallFacets();
  }

  @Endpoint(MCP_HISTORY_ENDPOINTS.getToolCall)
  getToolCall(@Param() params: ToolCallIdParamsDto): Promise<Responses['getToolCall']> {
    return this.history.getToolCall(params.id);
  }

  @Endpoint(MCP_HISTORY_ENDPOINTS.listConfirmations)
  listConfirmations(
    @Query() query: ListConfirmationsQueryDto,
  ): Promise<Responses['listConfirmations']> {
    return this.history.listConfirmations(query);
  }

  @Endpoint(MCP_HISTORY_ENDPOINTS.getConfirmation)
  getConfirmation(@Param() params: ConfirmationIdParamsDto): Promise<Responses['getConfirmation']> {
    return this.history.getConfirmation(params.id);
  }
}
