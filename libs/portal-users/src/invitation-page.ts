/**
 * The invitation link's own pages, server-rendered (no scripts, no external resources): the
 * invitation with a button that accepts it, the outcome, and a clear page for a link that no
 * longer works. Every interpolated value is escaped.
 */

/**
 * Headers of every invitation page: the URL holds a secret, so nothing is cached and no Referer
 * carries it to another site; the page runs no script, loads nothing and cannot be framed.
 */
export const INVITATION_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

export interface InvitationView {
  organizationName: string;
  email: string;
  name: string;
  expiresAt: Date;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(title)}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:2rem 1rem;color:#1a1a1a;background:#f6f7f9}
main{max-width:32rem;margin:0 auto;background:#fff;border:1px solid #d9dce1;border-radius:8px;padding:1.5rem 2rem}
h1{font-size:1.4rem;margin-top:0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
dt{color:#555}dd{margin:0;overflow-wrap:anywhere}
button{font:inherit;padding:.6rem 1.2rem;border:0;border-radius:6px;background:#1f5fbf;color:#fff;cursor:pointer}
button:focus-visible{outline:3px solid #f0b400;outline-offset:2px}
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** The invitation and its accept button (a form POST to the same URL, with its form token). */
export function invitationPage(view: InvitationView, formToken: string): string {
  const org = esc(view.organizationName);
  return page(
    `Invitation to ${view.organizationName}`,
    `<h1>${org} invited you to its customer portal</h1>
<dl>
<dt>Organisation</dt><dd>${org}</dd>
<dt>Name</dt><dd>${esc(view.name)}</dd>
<dt>E-mail</dt><dd>${esc(view.email)}</dd>
<dt>Valid until</dt><dd><time datetime="${view.expiresAt.toISOString()}">${esc(utc(view.expiresAt))}</time></dd>
</dl>
<form method="post">
<input type="hidden" name="form_token" value="${esc(formToken)}">
<button type="submit">Accept the invitation</button>
</form>
<p>If you did not expect this invitation, close this page: nothing happens unless you accept.</p>`,
  );
}

export function acceptedPage(view: { organizationName: string; email: string }): string {
  return page(
    'Invitation accepted',
    `<h1>Invitation accepted</h1>
<p>Your access to the customer portal of ${esc(view.organizationName)} is active for
${esc(view.email)}. You can close this page.</p>`,
  );
}

/** Unknown, used, replaced and expired links look the same (the page reveals nothing about which). */
export function invitationGonePage(): string {
  return page(
    'Invitation no longer valid',
    `<h1>This invitation link no longer works</h1>
<p>It was already accepted, it expired, or a newer invitation replaced it.</p>
<p>If you still need access, ask the organisation that invited you to send a new invitation.</p>`,
  );
}

/** The form did not come from this server's page (missing or wrong form token, or another site). */
export function formRefusedPage(): string {
  return page(
    'Request refused',
    `<h1>This request was refused</h1>
<p>Accepting an invitation only works from the invitation page itself. Open the link from the
e-mail again and press the button there.</p>`,
  );
}

function utc(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
