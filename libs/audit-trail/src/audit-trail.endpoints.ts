import { scoped } from '@app/access-vocabulary';
import type { EndpointContract } from '@app/rest-contract';
import {
  AuditEventExportPageDto,
  AuditEventPageDto,
  ExportAuditEventsQueryDto,
  ListAuditEventsQueryDto,
} from './audit-event.dto.js';

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
  exportAuditEvents: {
    method: 'GET',
    path: '/v1/audit-events/export',
    status: 200,
    access: scoped('audit', 'read', 'audit.read'),
    operationId: 'exportAuditEvents',
    summary:
      'The audit trail oldest first, for a SIEM pulling continuously: each page ends with a cursor to ask again from; events of the last minute come on a later pull (writes may still be committing)',
    errors: ['VALIDATION_ERROR'],
    query: ExportAuditEventsQueryDto,
    response: AuditEventExportPageDto,
  },
} as const satisfies Record<string, EndpointContract>;
