import { Injectable } from '@nestjs/common';
import { RequestContext } from '@app/identity';
import { readNewestFirstPage, type Page, type Plain } from '@app/rest-contract';
import type { ListOutboxQueryDto, OutboxMessageDto } from './mail-outbox.dto.js';
import { MailOutboxRepository } from './mail-outbox.repository.js';

/** Reads the caller's organisation outbox. */
@Injectable()
export class MailOutboxService {
  constructor(
    private readonly outbox: MailOutboxRepository,
    private readonly context: RequestContext,
  ) {}

  list(query: ListOutboxQueryDto): Promise<Page<Plain<OutboxMessageDto>>> {
    return readNewestFirstPage(
      query,
      (window) => this.outbox.list(this.context.organizationId, { to: query.to, ...window }),
      (r) => ({
        id: r.id,
        to: r.recipient,
        subject: r.subject,
        text: r.body_text,
        created_at: r.created_at.toISOString(),
      }),
    );
  }
}
