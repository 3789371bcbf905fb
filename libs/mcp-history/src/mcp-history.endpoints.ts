import { scoped } from '@app/access-vocabulary';
import type { EndpointContract } from '@app/rest-contract';
import {
  ConfirmationDetailDto,
  ConfirmationIdParamsDto,
  ConfirmationPageDto,
  ListConfirmationsQueryDto,
} from './confirmation-history.dto.js';
import {
  ListToolCallsQueryDto,
  ToolCallDto,
  ToolCallIdParamsDto,
  ToolCallPageDto,
} from './tool-call.dto.js';

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
  getToolCall: {
    method: 'GET',
    path: '/v1/mcp/tool-calls/:id',
    status: 200,
    access: scoped('audit', 'read', 'audit.read'),
    operationId: 'getMcpToolCall',
    summary: 'One MCP tool call',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
    params: ToolCallIdParamsDto,
    response: ToolCallDto,
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
