import { Controller, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, type Page, type Plain, Endpoint } from '@app/rest-contract';
import { ListOutboxQueryDto, type OutboxMessageDto } from './mail-outbox.dto.js';
import { MailOutboxService } from './mail-outbox.service.js';
import { MAIL_ENDPOINTS } from './mail.endpoints.js';

@ApiTags('mail')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class MailOutboxController {
  constructor(private readonly outbox: MailOutboxService) {}

  @Endpoint(MAIL_ENDPOINTS.listMailOutbox)
  list(@Query() query: ListOutboxQueryDto): Promise<Page<Plain<OutboxMessageDto>>> {
    return this.outbox.list(query);
  }
}
