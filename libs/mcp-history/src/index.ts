export { McpHistoryModule } from './mcp-history.module.js';
export { ToolCallHistoryModule } from './tool-call-history.module.js';
export { TOOL_CALLS_INSERT, ToolCallHistory, type ToolCallRow } from './tool-call.history.js';
export {
  toolCallSeriesQuery,
  toolCallsListQuery,
  type ToolCallFilter,
} from './tool-calls.repository.js';
export {
  ListToolCallsQueryDto,
  TOOL_CALL_ERAS,
  ToolCallDto,
  ToolCallIdParamsDto,
  ToolCallPageDto,
} from './tool-call.dto.js';
export {
  ConfirmationDetailDto,
  ConfirmationDto,
  ConfirmationIdParamsDto,
  ConfirmationPageDto,
  ListConfirmationsQueryDto,
} from './confirmation-history.dto.js';
export { MCP_HISTORY_ENDPOINTS } from './mcp-history.endpoints.js';
export { outcomeOf, TOOL_CALL_OUTCOMES, type ToolCallOutcome } from './tool-call-outcome.js';
export {
  ToolCallDetailDto,
  ToolCallFacetsDto,
  ToolCallSeriesDto,
  ToolCallSeriesQueryDto,
} from './tool-call-activity.dto.js';
