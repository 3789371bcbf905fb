import { Controller, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, type ResponsesOf, Endpoint } from '@app/rest-contract';
import { ListOutboxQueryDto } from './mail-outbox.dto.js';
import { MailOutboxService } from './mail-outbox.service.js';
import { MAIL_ENDPOINTS } from './mail.endpoints.js';

/** What each endpoint answers, from its contract (the input DTOs are named for the pipe). */
type Responses = ResponsesOf<typeof MAIL_ENDPOINTS>;

@ApiTags('mail')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class MailOutboxController {
  constructor(private readonly outbox: MailOutboxService) {}

  @Endpoint(MAIL_ENDPOINTS.listMailOutbox)
  list(@Query() query: ListOutboxQueryDto): Promise<Responses['listMailOutbox']> {
    return this.outbox.list(query);
  }
}
