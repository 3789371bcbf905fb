import { scoped } from '@app/access-vocabulary';
import type { EndpointContract } from '@app/rest-contract';
import {
  ApprovalDto,
  ApprovalIdParamsDto,
  ApprovalPageDto,
  ApproveDto,
  DenyDto,
  ListApprovalsQueryDto,
  PendingApprovalCountDto,
} from './approvals.dto.js';

/** Four-eyes approval requests (human/admin operations, not MCP tools). */
export const APPROVAL_ENDPOINTS = {
  listApprovals: {
    method: 'GET',
    path: '/v1/mcp/approvals',
    status: 200,
    access: scoped('org', 'admin', 'admin'),
    operationId: 'listMcpApprovals',
    summary: 'Requests for a second admin’s approval of a tool call, newest first',
    errors: ['VALIDATION_ERROR'],
    query: ListApprovalsQueryDto,
    response: ApprovalPageDto,
  },
  countPendingApprovals: {
    method: 'GET',
    path: '/v1/mcp/approvals/pending-count',
    status: 200,
    access: scoped('org', 'admin', 'admin'),
    operationId: 'countPendingMcpApprovals',
    summary: 'How many approval requests wait for a decision now',
    errors: [],
    response: PendingApprovalCountDto,
  },
  approveApproval: {
    method: 'POST',
    path: '/v1/mcp/approvals/:id/approve',
    status: 200,
    access: scoped('org', 'admin', 'admin'),
    operationId: 'approveMcpApproval',
    summary:
      'Approve a request (never your own): the requester’s next identical call runs once, before the approval expires',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', 'CONFLICT'],
    params: ApprovalIdParamsDto,
    body: ApproveDto,
    response: ApprovalDto,
  },
  denyApproval: {
    method: 'POST',
    path: '/v1/mcp/approvals/:id/deny',
    status: 200,
    access: scoped('org', 'admin', 'admin'),
    operationId: 'denyMcpApproval',
    summary: 'Deny a request with a reason (never your own): the requester’s next call is told',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', 'CONFLICT'],
    params: ApprovalIdParamsDto,
    body: DenyDto,
    response: ApprovalDto,
  },
} as const satisfies Record<string, EndpointContract>;
