import type { MailMessage } from '@app/mail';
import type { Approval } from './approval.js';

export interface ApprovalMailInput {
  approval: Approval;
  organizationName: string;
  to: string;
  name: string;
  /** The console's Approvals page: no secret in it; the admin signs in as usual. */
  consoleUrl: string;
}

/** The mail that asks an admin to decide an approval request (plain text). */
export function approvalRequestMail(i: ApprovalMailInput): MailMessage {
  const a = i.approval;
  return {
    organizationId: a.organizationId,
    to: i.to,
    subject: `${i.organizationName || 'Your organisation'}: ${a.requesterName} asks for approval of ${a.tool}`,
    text: [
      `Hello ${i.name},`,
      '',
      `${a.requesterName} <${a.requesterEmail}> asked, through ${a.clientName ?? 'an MCP client'}, to run ${a.tool}:`,
      '',
      `  ${a.message}`,
      '',
      `It runs only if an admin other than ${a.requesterName} approves it before ${a.expiresAt.toISOString()}.`,
      `Approve or deny it on the console's Approvals page (request ${a.id}):`,
      '',
      i.consoleUrl,
    ].join('\n'),
  };
}
