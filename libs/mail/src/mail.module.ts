import { Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { IdentityModule } from '@app/identity';
import { MailOutboxController } from './mail-outbox.controller.js';
import { MailOutboxRepository } from './mail-outbox.repository.js';
import { MailOutboxService } from './mail-outbox.service.js';
import { MAIL_TRANSPORT, type MailTransport } from './mail-transport.js';
import { OutboxMailTransport } from './outbox-mail.transport.js';
import { SmtpMailTransport } from './smtp-mail.transport.js';
import { LocalMailDrop } from './local-mail-drop.js';
import { NoPersonalMailer, PERSONAL_MAILER, type PersonalMailer } from './personal-mail.js';

function smtp(config: AppConfig, url: string): SmtpMailTransport {
  return new SmtpMailTransport({ url, from: config.mailFrom, timeoutMs: config.mailTimeoutMs });
}

/**
 * The mail service without its REST route, for libraries that send but must not bring in a
 * controller (the MCP tool executor's approval requests). An organisation's mail (invitations,
 * approval requests): SMTP when `SMTP_URL` is set, else its outbox (`GET /v1/mail/outbox`, read by
 * its admins). A person's own mail (sign-in links): SMTP, else the local mail drop outside
 * production, else nothing (see `PersonalMailer`): never an outbox another person can read.
 */
@Module({
  providers: [
    MailOutboxRepository,
    {
      provide: MAIL_TRANSPORT,
      inject: [AppConfig, MailOutboxRepository],
      useFactory: (config: AppConfig, outbox: MailOutboxRepository): MailTransport =>
        config.smtpUrl === undefined
          ? new OutboxMailTransport(outbox)
          : smtp(config, config.smtpUrl),
    },
    {
      provide: PERSONAL_MAILER,
      inject: [AppConfig],
      useFactory: (config: AppConfig): PersonalMailer =>
        config.smtpUrl !== undefined
          ? smtp(config, config.smtpUrl)
          : config.nodeEnv === 'production'
            ? new NoPersonalMailer()
            : new LocalMailDrop(config.dataDir),
    },
  ],
  exports: [MailOutboxRepository, MAIL_TRANSPORT, PERSONAL_MAILER],
})
export class MailTransportModule {}

/** The mail service ({@link MailTransportModule}) and the outbox's REST route for admins. */
@Module({
  imports: [IdentityModule, MailTransportModule],
  controllers: [MailOutboxController],
  providers: [MailOutboxService],
  exports: [MailTransportModule],
})
export class MailModule {}
