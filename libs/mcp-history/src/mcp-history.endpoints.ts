import { scoped } from '@app/access-vocabulary';
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
    access: scoped('audit', 'read', 'audit.read'),
    operationId: 'listMcpToolCalls',
    summary: 'MCP tool calls of the organisation, newest first',
    errors: ['VALIDATION_ERROR'],
    query: ListToolCallsQueryDto,
    response: ToolCallPageDto,
  },
  toolCallSeries: {
    method: 'GET',
    path: '/v1/mcp/tool-calls/per-minute',
    status: 200,
    access: scoped('audit', 'read', 'audit.read'),
    operationId: 'getMcpToolCallSeries',
    summary: 'Tool calls per minute by outcome, with the p95 duration (at most 24 hours)',
    errors: ['VALIDATION_ERROR'],
    query: ToolCallSeriesQueryDto,
    response: ToolCallSeriesDto,
  },
  toolCallFacets: {
    method: 'GET',
    path: '/v1/mcp/tool-calls/facets',
    status: 200,
    access: scoped('audit', 'read', 'audit.read'),
    operationId: 'getMcpToolCallFacets',
    summary: 'The tools, statuses, clients, people and tokens of the last 30 days of calls',
    errors: [],
    response: ToolCallFacetsDto,
  },
  getToolCall: {
    method: 'GET',
    path: '/v1/mcp/tool-calls/:id',
    status: 200,
    access: scoped('audit', 'read', 'audit.read'),
    operationId: 'getMcpToolCall',
    summary: 'One MCP tool call, the confirmation it presented and the audit events it wrote',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
    params: ToolCallIdParamsDto,
    response: ToolCallDetailDto,
  },
  listConfirmations: {
    method: 'GET',
    path: '/v1/mcp/confirmations',
    status: 200,
    access: scoped('audit', 'read', 'audit.read'),
    operationId: 'listMcpConfirmations',
    summary: 'Confirmations asked by MCP tools, newest first',
    errors: ['VALIDATION_ERROR'],
    query: ListConfirmationsQueryDto,
    response: ConfirmationPageDto,
  },
  getConfirmation: {
    method: 'GET',
    path: '/v1/mcp/confirmations/:id',
    status: 200,
    access: scoped('audit', 'read', 'audit.read'),
    operationId: 'getMcpConfirmation',
    summary: 'One confirmation, the tool call it authorized and the audit events it produced',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
    params: ConfirmationIdParamsDto,
    response: ConfirmationDetailDto,
  },
} as const satisfies Record<string, EndpointContract>;
