import type { MailMessage } from '@app/mail';

export interface InvitationMailInput {
  organizationId: string;
  organizationName: string;
  to: string;
  name: string;
  acceptUrl: string;
  expiresAt: Date;
}

/** The invitation e-mail (plain text). */
export function invitationMail(i: InvitationMailInput): MailMessage {
  return {
    organizationId: i.organizationId,
    to: i.to,
    subject: `${i.organizationName} invited you to its customer portal`,
    text: [
      `Hello ${i.name},`,
      '',
      `${i.organizationName} invited you to its customer portal.`,
      `Accept the invitation before ${i.expiresAt.toISOString()}:`,
      '',
      i.acceptUrl,
      '',
      'If you did not expect this invitation, you can ignore this message.',
    ].join('\n'),
  };
}
