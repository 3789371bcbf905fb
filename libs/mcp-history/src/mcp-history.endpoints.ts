import type { EndpointContract } from '@app/rest-contract';
import {
  ConfirmationDetailDto,
  ConfirmationIdParamsDto,
  ConfirmationPageDto,
  ListConfirmationsQueryDto,
} from './confirmation-history.dto.js';
import {
  ToolCallDetailDto,
  ToolCallFacetsDto,
  ToolCallSeriesDto,
  ToolCallSeriesQueryDto,
} from './tool-call-activity.dto.js';
import { ListToolCallsQueryDto, ToolCallIdParamsDto, ToolCallPageDto } from './tool-call.dto.js';

/** The MCP history REST endpoints (admin queries) and the DTO classes of their input and output. */
export const MCP_HISTORY_ENDPOINTS = {
  listToolCalls: {
    method: 'GET',
    path: '/v1/mcp/tool-calls',
    status: 200,
    query: ListToolCallsQueryDto,
    response: ToolCallPageDto,
  },
  toolCallSeries: {
    method: 'GET',
    path: '/v1/mcp/tool-calls/per-minute',
    status: 200,
    query: ToolCallSeriesQueryDto,
    response: ToolCallSeriesDto,
  },
  toolCallFacets: {
    method: 'GET',
    path: '/v1/mcp/tool-calls/facets',
    status: 200,
    response: ToolCallFacetsDto,
  },
  getToolCall: {
    method: 'GET',
    path: '/v1/mcp/tool-calls/:id',
    status: 200,
    params: ToolCallIdParamsDto,
    response: ToolCallDetailDto,
  },
  listConfirmations: {
    method: 'GET',
    path: '/v1/mcp/confirmations',
    status: 200,
    query: ListConfirmationsQueryDto,
    response: ConfirmationPageDto,
  },
  getConfirmation: {
    method: 'GET',
    path: '/v1/mcp/confirmations/:id',
    status: 200,
    params: ConfirmationIdParamsDto,
    response: ConfirmationDetailDto,
  },
} as const satisfies Record<string, EndpointContract>;
