import { Controller, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, type ResponsesOf, Endpoint } from '@app/rest-contract';
import { ExportAuditEventsQueryDto, ListAuditEventsQueryDto } from './audit-event.dto.js';
import { AuditTrail } from './audit-trail.service.js';
import { AUDIT_TRAIL_ENDPOINTS } from './audit-trail.endpoints.js';

/** What each endpoint answers, from its contract (the input DTOs are named for the pipe). */
type Responses = ResponsesOf<typeof AUDIT_TRAIL_ENDPOINTS>;

@ApiTags('audit')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class AuditEventsController {
  constructor(private readonly audit: AuditTrail) {}

  @Endpoint(AUDIT_TRAIL_ENDPOINTS.listAuditEvents)
  list(@Query() query: ListAuditEventsQueryDto): Promise<Responses['listAuditEvents']> {
    return this.audit.list(query);
  }

  @Endpoint(AUDIT_TRAIL_ENDPOINTS.exportAuditEvents)
  export(@Query() query: ExportAuditEventsQueryDto): Promise<Responses['exportAuditEvents']> {
    return this.audit.exportPage(query);
  }
}
