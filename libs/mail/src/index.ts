export { MailModule, MailTransportModule } from './mail.module.js';
export { MAIL_TRANSPORT, type MailMessage, type MailTransport } from './mail-transport.js';
export { SmtpMailTransport, type SmtpOptions } from './smtp-mail.transport.js';
export { OutboxMailTransport } from './outbox-mail.transport.js';
export { ListOutboxQueryDto, OutboxMessageDto, OutboxMessagePageDto } from './mail-outbox.dto.js';
export { MAIL_ENDPOINTS } from './mail.endpoints.js';
export {
  NoPersonalMailer,
  PERSONAL_MAILER,
  type PersonalMail,
  type PersonalMailer,
} from './personal-mail.js';
export { LocalMailDrop, type DroppedMail } from './local-mail-drop.js';
