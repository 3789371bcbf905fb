import { scoped } from '@app/access-vocabulary';
import type { EndpointContract } from '@app/rest-contract';
import { AuditEventPageDto, ListAuditEventsQueryDto } from './audit-event.dto.js';

/** The audit trail's REST endpoints and their DTO classes (input and output schemas). */
export const AUDIT_TRAIL_ENDPOINTS = {
  listAuditEvents: {
    method: 'GET',
    path: '/v1/audit-events',
    status: 200,
    access: scoped('audit', 'read', 'audit.read'),
    operationId: 'listAuditEvents',
    summary:
      'The organisation audit trail, newest first: human (api) and agent (mcp) writes together',
    errors: ['VALIDATION_ERROR'],
    query: ListAuditEventsQueryDto,
    response: AuditEventPageDto,
  },
} as const satisfies Record<string, EndpointContract>;
