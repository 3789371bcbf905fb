import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { CURSOR_TIMESTAMP_SQL } from '@app/rest-contract';
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
    const params: unknown[] = [organizationId];
    const where = ['organization_id = $1'];
    if (filter.to !== undefined) {
      params.push(filter.to);
      where.push(`lower(recipient) = lower($${params.length})`);
    }
    if (filter.after !== undefined) {
      params.push(filter.after[0], filter.after[1]);
      where.push(
        `(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`,
      );
    }
    params.push(filter.take);
    return this.ds.query<OutboxRow[]>(
      `SELECT id, recipient, subject, body_text, created_at, ${CURSOR_TIMESTAMP_SQL('created_at')} AS cursor_ts
         FROM mail_outbox WHERE ${where.join(' AND ')}
        ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
  }
}
