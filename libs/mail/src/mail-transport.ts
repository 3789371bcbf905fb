import type { EntityManager } from 'typeorm';

/** A plain-text message on behalf of an organisation. */
export interface MailMessage {
  organizationId: string;
  to: string;
  subject: string;
  text: string;
}

/**
 * Sends mail as part of a database transaction. The outbox writes the message in that
 * transaction (it commits or rolls back with the change); SMTP hands it to the server before the
 * caller commits, so a refusal or timeout rolls the change back. Either way a failure is a
 * `DomainError('EXTERNAL_SERVICE_ERROR')` (502).
 */
export interface MailTransport {
  readonly kind: 'smtp' | 'outbox';
  send(tx: EntityManager, message: MailMessage): Promise<void>;
}

/** Injection token: SMTP when `SMTP_URL` is set, else the local outbox table. */
export const MAIL_TRANSPORT = Symbol('MAIL_TRANSPORT');
