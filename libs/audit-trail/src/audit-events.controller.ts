import { Controller, Get, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresAccess } from '@app/access';
import {
  ApiErrors,
  ApiValidationPipe,
  AUTH_ERROR_CODES,
  type Page,
  type Plain,
} from '@app/rest-contract';
import {
  AuditEventPageDto,
  ListAuditEventsQueryDto,
  type AuditEventDto,
} from './audit-event.dto.js';
import { AuditTrail } from './audit-trail.service.js';

@ApiTags('audit')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller('v1/audit-events')
export class AuditEventsController {
  constructor(private readonly audit: AuditTrail) {}

  @Get()
  @RequiresAccess({ scope: { resource: 'audit', access: 'read' }, permission: 'audit.read' })
  @ApiOperation({
    operationId: 'listAuditEvents',
    summary:
      'The organisation audit trail, newest first: human (api) and agent (mcp) writes together',
  })
  @ApiOkResponse({ type: AuditEventPageDto })
  @ApiErrors('VALIDATION_ERROR', ...AUTH_ERROR_CODES)
  list(@Query() query: ListAuditEventsQueryDto): Promise<Page<Plain<AuditEventDto>>> {
    return this.audit.list(query);
  }
}
