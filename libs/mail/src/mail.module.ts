import { Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { IdentityModule } from '@app/identity';
import { MailOutboxController } from './mail-outbox.controller.js';
import { MailOutboxRepository } from './mail-outbox.repository.js';
import { MailOutboxService } from './mail-outbox.service.js';
import { MAIL_TRANSPORT, type MailTransport } from './mail-transport.js';
import { OutboxMailTransport } from './outbox-mail.transport.js';
import { SmtpMailTransport } from './smtp-mail.transport.js';

/** The mail service: SMTP when `SMTP_URL` is set, else the local outbox (`GET /v1/mail/outbox`). */
@Module({
  imports: [IdentityModule],
  controllers: [MailOutboxController],
  providers: [
    MailOutboxRepository,
    MailOutboxService,
    {
      provide: MAIL_TRANSPORT,
      inject: [AppConfig, MailOutboxRepository],
      useFactory: (config: AppConfig, outbox: MailOutboxRepository): MailTransport =>
        config.smtpUrl === undefined
          ? new OutboxMailTransport(outbox)
          : new SmtpMailTransport({
              url: config.smtpUrl,
              from: config.mailFrom,
              timeoutMs: config.mailTimeoutMs,
            }),
    },
  ],
  exports: [MAIL_TRANSPORT],
})
export class MailModule {}
