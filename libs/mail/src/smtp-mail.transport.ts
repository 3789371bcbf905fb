import { Logger, type OnModuleDestroy } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { DomainError } from '@app/errors';
import type { MailMessage, MailTransport } from './mail-transport.js';
import type { PersonalMail, PersonalMailer } from './personal-mail.js';

export interface SmtpOptions {
  url: string;
  from: string;
  timeoutMs: number;
}

/**
 * SMTP through nodemailer. Every phase (connect, greeting, each command) and the whole send are
 * bounded by `MAIL_TIMEOUT_MS`; a refusal or a timeout becomes `EXTERNAL_SERVICE_ERROR` with
 * the reason, never the server URL (it may carry credentials).
 */
export class SmtpMailTransport implements MailTransport, PersonalMailer, OnModuleDestroy {
  readonly kind = 'smtp';
  private readonly logger = new Logger(SmtpMailTransport.name);
  private readonly transporter: Transporter;

  constructor(private readonly options: SmtpOptions) {
    this.transporter = createTransport({
      url: options.url,
      connectionTimeout: options.timeoutMs,
      greetingTimeout: options.timeoutMs,
      socketTimeout: options.timeoutMs,
      dnsTimeout: options.timeoutMs,
    });
  }

  send(_tx: unknown, message: MailMessage): Promise<void> {
    return this.deliver(message);
  }

  async deliver(message: PersonalMail): Promise<void> {
    try {
      await this.transporter.sendMail({
        from: this.options.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (err) {
      const reason = reasonOf(err);
      this.logger.warn({ reason, code: errorField(err, 'code') }, 'SMTP send failed');
      throw new DomainError(
        'EXTERNAL_SERVICE_ERROR',
        reason === 'timeout'
          ? 'The mail service did not answer in time; nothing was changed. Try again later.'
          : 'The mail service refused the message; nothing was changed. Try again later.',
        { service: 'mail', reason },
      );
    }
  }

  onModuleDestroy(): void {
    this.transporter.close();
  }
}

function errorField(err: unknown, key: 'code' | 'name'): unknown {
  return typeof err === 'object' && err !== null ? Reflect.get(err, key) : undefined;
}

function reasonOf(err: unknown): 'timeout' | 'unreachable' | 'rejected' {
  const name = errorField(err, 'name');
  const code = errorField(err, 'code');
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'ETIMEDOUT' || code === 'EABORT')
    return 'timeout';
  if (code === 'ECONNECTION' || code === 'ESOCKET' || code === 'EDNS' || code === 'ECONNREFUSED')
    return 'unreachable';
  return 'rejected';
}
