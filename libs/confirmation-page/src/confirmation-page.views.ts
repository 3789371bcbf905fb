import { esc, hidden, layout, messagePage } from '@app/oauth-server';
import type { PageConfirmation } from '@app/mcp-confirmations';

/**
 * The `verified` confirmation page's HTML: plain forms, no script, the one layout and stylesheet
 * of this server's pages. Every interpolated value goes through `esc`; the question itself was
 * already sanitised when it was asked (the same text a client's form would show).
 */

export interface ConfirmViewInput {
  csrf: string;
  confirmation: PageConfirmation;
  personEmail: string;
}

export function confirmView(input: ConfirmViewInput): string {
  const c = input.confirmation;
  const path = `/confirm/${c.id}`;
  const client = c.clientName ?? 'An application';
  return layout(
    'Confirm',
    `<h1>Confirm this action?</h1>
<p><strong>${esc(client)}</strong>, acting as you (<strong>${esc(input.personEmail)}</strong>), asks:</p>
<p class="warning" role="note" id="question">${esc(c.message)}</p>
<p class="note">Tool <code>${esc(c.tool)}</code>, asked at ${esc(c.createdAt.toISOString())}; this page can be answered until ${esc(c.expiresAt.toISOString())}, once.</p>
<form method="post" action="${esc(path)}">${hidden('csrf', input.csrf)}
<button type="submit" name="decision" value="confirm">Confirm</button>
<button type="submit" name="decision" value="decline" class="secondary">Decline</button></form>
<p class="note">Confirming lets the application run this one call once. Declining changes nothing.</p>
<form method="post" action="/signout">${hidden('csrf', input.csrf)}${hidden('return_to', path)}
<p class="note">Not you? <button type="submit" class="secondary">Sign out</button></p></form>`,
  );
}

/**
 * Signed in as someone else than the person the question was asked of: a refusal and no
 * button to confirm (a link passed on by someone else is useless to whoever opens it). The
 * question is not shown either: it is the other person's.
 */
export function otherPersonView(input: {
  csrf: string;
  path: string;
  personEmail: string;
}): string {
  return layout(
    'Not yours to confirm',
    `<h1>Not yours to confirm</h1>
<p class="error" role="alert">This confirmation was asked of another person. You are signed in as <strong>${esc(input.personEmail)}</strong>, and only the person who connected the application can answer it here. Nothing was confirmed.</p>
<p>If someone sent you this link and asked you to confirm it, do not: tell your organisation’s admins.</p>
<form method="post" action="/signout">${hidden('csrf', input.csrf)}${hidden('return_to', input.path)}
<p class="note">Connected the application with another account? <button type="submit" class="secondary">Sign out</button></p></form>`,
  );
}

export function decidedView(decision: 'confirm' | 'decline', clientName: string | null): string {
  const client = clientName ?? 'the application';
  return decision === 'confirm'
    ? messagePage(
        'Confirmed',
        `You confirmed it. Go back to ${client}: it continues, and the action runs once.`,
      )
    : messagePage('Declined', `You declined it. Nothing was changed; ${client} is told so.`);
}

/** Why a question can no longer be answered here. */
export type ClosedReason = 'missing' | 'answered' | 'used' | 'expired' | 'policy_changed';

const CLOSED: Readonly<Record<ClosedReason, { status: number; title: string; text: string }>> = {
  missing: {
    status: 404,
    title: 'No such confirmation',
    text: 'There is no confirmation at this address. Ask the application to call the tool again.',
  },
  answered: {
    status: 410,
    title: 'Already answered',
    text: 'This confirmation was already answered on this page; each one is answered once. To do it again, ask the application to call the tool again.',
  },
  used: {
    status: 410,
    title: 'Already used',
    text: 'This confirmation was already used or declined; each one works once. To do it again, ask the application to call the tool again.',
  },
  expired: {
    status: 410,
    title: 'This confirmation expired',
    text: 'It was not answered in time, so nothing was changed. Ask the application to call the tool again.',
  },
  policy_changed: {
    status: 409,
    title: 'The confirmation policy changed',
    text: 'An organisation admin changed how this tool is confirmed since it was asked, so this page no longer decides anything. The application’s next call follows the current policy.',
  },
};

export function closedView(reason: ClosedReason): { status: number; html: string } {
  const { status, title, text } = CLOSED[reason];
  return { status, html: messagePage(title, text) };
}
