import type { EntityManager } from 'typeorm';
import type { MailOutboxRepository } from './mail-outbox.repository.js';
import type { MailMessage, MailTransport } from './mail-transport.js';

/**
 * The local "mail service" when no SMTP server is configured (embedded demo, tests): the message
 * becomes a row of `mail_outbox`, written in the caller's transaction, readable through
 * `GET /v1/mail/outbox`. It can still fail (the database), and then the whole change rolls back.
 */
export class OutboxMailTransport implements MailTransport {
  readonly kind = 'outbox';

  constructor(private readonly outbox: MailOutboxRepository) {}

  send(tx: EntityManager, message: MailMessage): Promise<void> {
    return this.outbox.insert(tx, message);
  }
}
