import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { AuditEventsController } from './audit-events.controller.js';
import { AuditEventsRepository } from './audit-events.repository.js';
import { AuditTrail } from './audit-trail.service.js';

/** The append-only organisation audit trail and `GET /v1/audit-events`. */
@Module({
  imports: [IdentityModule],
  controllers: [AuditEventsController],
  providers: [AuditEventsRepository, AuditTrail],
  exports: [AuditTrail],
})
export class AuditTrailModule {}
