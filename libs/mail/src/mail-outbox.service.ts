import { Injectable } from '@nestjs/common';
import { RequestContext } from '@app/identity';
import { newestFirstPage, pageRequest, type Page, type Plain } from '@app/rest-contract';
import type { ListOutboxQueryDto, OutboxMessageDto } from './mail-outbox.dto.js';
import { MailOutboxRepository } from './mail-outbox.repository.js';

/** Reads the caller's organisation outbox. */
@Injectable()
export class MailOutboxService {
  constructor(
    private readonly outbox: MailOutboxRepository,
    private readonly context: RequestContext,
  ) {}

  async list(query: ListOutboxQueryDto): Promise<Page<Plain<OutboxMessageDto>>> {
    const { limit, after, take } = pageRequest(query);
    const rows = await this.outbox.list(this.context.organizationId, {
      to: query.to,
      after,
      take,
    });
    return newestFirstPage(rows, limit, (r) => ({
      id: r.id,
      to: r.recipient,
      subject: r.subject,
      text: r.body_text,
      created_at: r.created_at.toISOString(),
    }));
  }
}
