import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { newestFirstQuery } from '@app/rest-contract';
import type { MailMessage } from './mail-transport.js';

export interface OutboxRow {
  id: string;
  recipient: string;
  subject: string;
  body_text: string;
  created_at: Date;
  cursor_ts: string;
}

/** All SQL on `mail_outbox`. */
@Injectable()
export class MailOutboxRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insert(tx: EntityManager, m: MailMessage): Promise<void> {
    await tx.query(
      `INSERT INTO mail_outbox (organization_id, recipient, subject, body_text) VALUES ($1, $2, $3, $4)`,
      [m.organizationId, m.to, m.subject, m.text],
    );
  }

  /** Newest first; `to` matches the recipient ignoring case. */
  list(
    organizationId: string,
    filter: { to?: string; after?: readonly string[]; take: number },
  ): Promise<OutboxRow[]> {
    const { to } = filter;
    const q = newestFirstQuery({
      from: 'mail_outbox',
      columns: 'id, recipient, subject, body_text, created_at',
      organizationId,
      conditions: [
        to === undefined ? undefined : (bind) => `lower(recipient) = lower(${bind(to)})`,
      ],
      window: filter,
    });
    return this.ds.query<OutboxRow[]>(q.text, q.params);
  }
}
