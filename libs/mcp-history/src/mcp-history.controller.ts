import { Controller, Param, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, type Page, type Plain, Endpoint } from '@app/rest-contract';
import {
  ConfirmationDetailDto,
  ConfirmationIdParamsDto,
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
import { ListToolCallsQueryDto, ToolCallDto, ToolCallIdParamsDto } from './tool-call.dto.js';
import { MCP_HISTORY_ENDPOINTS } from './mcp-history.endpoints.js';

/** MCP call and confirmation history for organisation admins. */
@ApiTags('mcp-history')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class McpHistoryController {
  constructor(private readonly history: McpHistoryService) {}

  @Endpoint(MCP_HISTORY_ENDPOINTS.listToolCalls)
  listToolCalls(@Query() query: ListToolCallsQueryDto): Promise<Page<Plain<ToolCallDto>>> {
    return this.history.listToolCalls(query);
  }

  @Endpoint(MCP_HISTORY_ENDPOINTS.toolCallSeries)
  toolCallSeries(@Query() query: ToolCallSeriesQueryDto): Promise<Plain<ToolCallSeriesDto>> {
    return this.history.toolCallSeries(query);
  }

  @Endpoint(MCP_HISTORY_ENDPOINTS.toolCallFacets)
  toolCallFacets(): Promise<Plain<ToolCallFacetsDto>> {
    return this.history.toolCallFacets();
  }

  @Endpoint(MCP_HISTORY_ENDPOINTS.getToolCall)
  getToolCall(@Param() params: ToolCallIdParamsDto): Promise<Plain<ToolCallDetailDto>> {
    return this.history.getToolCall(params.id);
  }

  @Endpoint(MCP_HISTORY_ENDPOINTS.listConfirmations)
  listConfirmations(
    @Query() query: ListConfirmationsQueryDto,
  ): Promise<Page<Plain<ConfirmationDto>>> {
    return this.history.listConfirmations(query);
  }

  @Endpoint(MCP_HISTORY_ENDPOINTS.getConfirmation)
  getConfirmation(@Param() params: ConfirmationIdParamsDto): Promise<Plain<ConfirmationDetailDto>> {
    return this.history.getConfirmation(params.id);
  }
}
