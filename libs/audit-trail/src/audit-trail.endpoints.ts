import type { EndpointContract } from '@app/rest-contract';
import { AuditEventPageDto, ListAuditEventsQueryDto } from './audit-event.dto.js';

/** The audit trail's REST endpoints and their DTO classes (input and output schemas). */
export const AUDIT_TRAIL_ENDPOINTS = {
  listAuditEvents: {
    method: 'GET',
    path: '/v1/audit-events',
    status: 200,
    query: ListAuditEventsQueryDto,
    response: AuditEventPageDto,
  },
} as const satisfies Record<string, EndpointContract>;
