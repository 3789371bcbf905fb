/**
 * Mail to one person that only that person may read: a sign-in link, anything that grants
 * access. It never belongs to an organisation and never lands in an organisation's outbox (whose
 * admins read it through the API); see {@link PersonalMailer}.
 */
export interface PersonalMail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Where personal mail goes:
 * - `smtp`: the mail service (`SMTP_URL`), to the person's own mailbox.
 * - `local`: no mail service, outside production: a file of this machine's local mail drop
 *   (`DATA_DIR/mail`, readable by this machine's user only), which the person at the machine
 *   reads with `npm run admin -- mail:show --email …`. No API reads it.
 * - `none`: production without a mail service: personal mail cannot be sent, so nothing that
 *   needs it (e-mail sign-in) is offered.
 */
export interface PersonalMailer {
  readonly kind: 'smtp' | 'local' | 'none';
  /** Sends it, or throws (`EXTERNAL_SERVICE_ERROR` when the mail service fails). */
  deliver(mail: PersonalMail): Promise<void>;
}

/** Injection token of the {@link PersonalMailer}. */
export const PERSONAL_MAILER = Symbol('PERSONAL_MAILER');

/** Production without SMTP: there is nowhere only the person can read. */
export class NoPersonalMailer implements PersonalMailer {
  readonly kind = 'none';

  deliver(): Promise<void> {
    return Promise.reject(
      new Error('No mail service is configured (SMTP_URL): personal mail cannot be sent'),
    );
  }
}
