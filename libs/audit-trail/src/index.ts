export { AuditTrailModule, AuditWriterModule } from './audit-trail.module.js';
export {
  AuditTrail,
  EXPORT_SETTLE_MS,
  type AuditActor,
  type AuditEntry,
} from './audit-trail.service.js';
export {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_TYPES,
  AUDIT_CHANNELS,
  AUDIT_RESOURCE_TYPES,
  type AuditAction,
  type AuditActorType,
  type AuditChannel,
  type AuditResourceType,
} from './audit-vocabulary.js';
export { auditedFields, type AuditChanges, type AuditedFields } from './audit-changes.js';
export {
  AuditEventDto,
  AuditEventExportPageDto,
  AuditEventPageDto,
  ExportAuditEventsQueryDto,
  ListAuditEventsQueryDto,
} from './audit-event.dto.js';
export { AUDIT_TRAIL_ENDPOINTS } from './audit-trail.endpoints.js';
export {
  auditEventsListQuery,
  AuditEventsRepository,
  type AuditEventFilter,
} from './audit-events.repository.js';
