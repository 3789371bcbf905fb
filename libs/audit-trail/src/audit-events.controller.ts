import { Controller, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, type Page, type Plain, Endpoint } from '@app/rest-contract';
import {
  ExportAuditEventsQueryDto,
  ListAuditEventsQueryDto,
  type AuditEventDto,
} from './audit-event.dto.js';
import { AuditTrail } from './audit-trail.service.js';
import { AUDIT_TRAIL_ENDPOINTS } from './audit-trail.endpoints.js';

@ApiTags('audit')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class AuditEventsController {
  constructor(private readonly audit: AuditTrail) {}

  @Endpoint(AUDIT_TRAIL_ENDPOINTS.listAuditEvents)
  list(@Query() query: ListAuditEventsQueryDto): Promise<Page<Plain<AuditEventDto>>> {
    return this.audit.list(query);
  }

  @Endpoint(AUDIT_TRAIL_ENDPOINTS.exportAuditEvents)
  export(@Query() query: ExportAuditEventsQueryDto): Promise<Page<Plain<AuditEventDto>>> {
    return this.audit.exportPage(query);
  }
}
