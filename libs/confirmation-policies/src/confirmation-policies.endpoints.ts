import { scoped } from '@app/access-vocabulary';
import type { EndpointContract } from '@app/rest-contract';
import {
  ConfirmationPolicyDto,
  ConfirmationPolicyListDto,
  PolicyToolParamsDto,
  UpdateConfirmationPolicyDto,
} from './confirmation-policy.dto.js';

/** Confirmation policies (human/admin operations, not MCP tools). */
export const CONFIRMATION_POLICY_ENDPOINTS = {
  listConfirmationPolicies: {
    method: 'GET',
    path: '/v1/mcp/confirmation-policies',
    status: 200,
    access: scoped('org', 'admin', 'admin'),
    operationId: 'listConfirmationPolicies',
    summary:
      'Each tool that asks before it runs, with the confirmation mode and expiry it runs under',
    errors: [],
    response: ConfirmationPolicyListDto,
  },
  updateConfirmationPolicy: {
    method: 'PATCH',
    path: '/v1/mcp/confirmation-policies/:tool',
    status: 200,
    access: scoped('org', 'admin', 'admin'),
    operationId: 'updateConfirmationPolicy',
    summary:
      'Set how a tool is confirmed (form, verified, approval) and for how long a question stays open; effective on every replica within a second',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT'],
    params: PolicyToolParamsDto,
    body: UpdateConfirmationPolicyDto,
    response: ConfirmationPolicyDto,
  },
} as const satisfies Record<string, EndpointContract>;
