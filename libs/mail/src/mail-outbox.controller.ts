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
  ListOutboxQueryDto,
  OutboxMessagePageDto,
  type OutboxMessageDto,
} from './mail-outbox.dto.js';
import { MailOutboxService } from './mail-outbox.service.js';

@ApiTags('mail')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller('v1/mail/outbox')
export class MailOutboxController {
  constructor(private readonly outbox: MailOutboxService) {}

  @Get()
  @RequiresAccess({ scope: { resource: 'org', access: 'admin' }, permission: 'admin' })
  @ApiOperation({
    operationId: 'listMailOutbox',
    summary:
      'Mail written to the local outbox (when no SMTP server is configured: the demo and tests)',
  })
  @ApiOkResponse({ type: OutboxMessagePageDto })
  @ApiErrors('VALIDATION_ERROR', ...AUTH_ERROR_CODES)
  list(@Query() query: ListOutboxQueryDto): Promise<Page<Plain<OutboxMessageDto>>> {
    return this.outbox.list(query);
  }
}
