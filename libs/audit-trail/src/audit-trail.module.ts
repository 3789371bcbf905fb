import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { AuditEventsController } from './audit-events.controller.js';
import { AuditEventsRepository } from './audit-events.repository.js';
import { AuditTrail } from './audit-trail.service.js';

/**
 * The audit trail without its REST route, for libraries that record events but must not bring in
 * a controller (the MCP tool executor's approval requests).
 */
@Module({
  imports: [IdentityModule],
  providers: [AuditEventsRepository, AuditTrail],
  exports: [AuditTrail],
})
export class AuditWriterModule {}

/** The append-only organisation audit trail ({@link AuditWriterModule}) and `GET /v1/audit-events`. */
@Module({
  imports: [IdentityModule, AuditWriterModule],
  controllers: [AuditEventsController],
  exports: [AuditWriterModule],
})
export class AuditTrailModule {}
