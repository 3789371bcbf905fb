import { createHash } from 'node:crypto';
import { applyDecorators, Header } from '@nestjs/common';

/**
 * The server-rendered pages of signing in and consenting: plain HTML forms, no script, one
 * stylesheet pinned by its hash in the Content-Security-Policy. Every interpolated value goes
 * through {@link esc}.
 */

const CSS = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;line-height:1.5}
body{margin:0;display:flex;justify-content:center;padding:3rem 1rem}
main{max-width:32rem;width:100%}
h1{font-size:1.5rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=email]{width:100%;box-sizing:border-box;padding:.6rem;font-size:1rem;border:1px solid #888;border-radius:.4rem}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:.4rem;border:1px solid #1a56db;background:#1a56db;color:#fff;cursor:pointer;margin:1rem .5rem 0 0}
button.secondary{background:transparent;color:inherit;border-color:#888}
button:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.warning{border-left:4px solid #d97706;padding:.5rem 1rem;background:rgba(217,119,6,.1)}
.error{border-left:4px solid #dc2626;padding:.5rem 1rem;background:rgba(220,38,38,.1)}
.note{color:#555}
@media (prefers-color-scheme:dark){.note{color:#aaa}}
ul{padding-left:1.25rem}
fieldset{border:1px solid #888;border-radius:.4rem;margin:1rem 0}
code{overflow-wrap:anywhere}
`;

const CSS_HASH = `sha256-${createHash('sha256').update(CSS, 'utf8').digest('base64')}`;

/** The Content-Security-Policy of every page: nothing but this stylesheet and same-origin forms. */
export const PAGE_CSP = `default-src 'none'; style-src '${CSS_HASH}'; frame-ancestors 'none'; base-uri 'none'`;

/**
 * What protects every page this server renders, ours and oidc-provider's alike: the page CSP
 * (which also forbids framing) and the older header that says the same to browsers without CSP.
 */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
};

/**
 * The headers of every server-rendered page: HTML, the page security headers, never cached. `noReferrer`: the
 * page's URL carries a secret (a sign-in link), so it must not leave in a Referer header.
 */
export function HtmlPage(options: { noReferrer?: boolean } = {}): MethodDecorator {
  return applyDecorators(
    Header('content-type', 'text/html; charset=utf-8'),
    ...Object.entries(PAGE_SECURITY_HEADERS).map(([name, value]) => Header(name, value)),
    Header('cache-control', 'no-store'),
    ...(options.noReferrer === true ? [Header('referrer-policy', 'no-referrer')] : []),
  );
}

export function esc(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * A whole page in this server's one layout (its stylesheet is the one the CSP pins). Other
 * libraries' server-rendered pages (the `verified` confirmation page) use it too; `body` is HTML
 * whose interpolated values went through {@link esc}.
 */
export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${esc(title)} · Platform</title><style>${CSS}</style></head>
<body><main>${body}</main></body></html>`;
}

export function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`;
}

export interface SignInPageInput {
  csrf: string;
  returnTo: string;
  /** Shown after a link was requested (whether or not the address is known). */
  sentTo?: string;
  error?: string;
  /** The upstream identity provider, when one is configured. */
  upstream?: { url: string };
  /** Whether a link can be asked for by e-mail (not where it could reach anyone but its person). */
  emailOffered: boolean;
}

export function signInPage(input: SignInPageInput): string {
  const error =
    input.error === undefined ? '' : `<p class="error" role="alert">${esc(input.error)}</p>`;
  const upstream =
    input.upstream === undefined
      ? ''
      : `<form method="get" action="${esc(input.upstream.url)}">${hidden('return_to', input.returnTo)}
<button type="submit">Sign in with your company account</button></form>${input.emailOffered ? '<p class="note">Or get a one-time link by e-mail:</p>' : ''}`;
  if (!input.emailOffered) {
    const none =
      input.upstream === undefined
        ? '<p class="error" role="alert">Signing in is not available on this server yet: it has neither a mail service nor a company sign-in configured. Ask its administrator.</p>'
        : '';
    return layout('Sign in', `<h1>Sign in</h1>${error}${none}${upstream}`);
  }
  const sent =
    input.sentTo === undefined
      ? ''
      : `<p role="status">If <strong>${esc(input.sentTo)}</strong> belongs to a member of an organisation, a one-time sign-in link is on its way. It works once and expires soon.</p>`;
  return layout(
    'Sign in',
    `<h1>Sign in</h1>${error}${sent}${upstream}
<form method="post" action="/signin">${hidden('csrf', input.csrf)}${hidden('return_to', input.returnTo)}
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="320">
<button type="submit">E-mail me a sign-in link</button></form>`,
  );
}

export function signInLinkPage(input: { csrf: string; token: string }): string {
  return layout(
    'Continue signing in',
    `<h1>Continue signing in</h1><p>This one-time link signs you in on this browser.</p>
<form method="post" action="/signin/link">${hidden('csrf', input.csrf)}${hidden('token', input.token)}
<button type="submit">Continue</button></form>`,
  );
}

export function messagePage(
  title: string,
  text: string,
  link?: { href: string; label: string },
): string {
  const a = link === undefined ? '' : `<p><a href="${esc(link.href)}">${esc(link.label)}</a></p>`;
  return layout(title, `<h1>${esc(title)}</h1><p>${esc(text)}</p>${a}`);
}

/**
 * RP-initiated logout, asked of the person: one button posts the library's form (its action and
 * anti-forgery value); nothing happens by itself.
 */
export function signOutConfirmPage(input: {
  action: string;
  xsrf: string;
  clientName?: string;
  returnHost?: string;
}): string {
  const who =
    input.clientName === undefined
      ? ''
      : `<p><strong>${esc(input.clientName)}</strong> asks to sign you out.</p>`;
  const then =
    input.returnHost === undefined
      ? ''
      : `<p>Afterwards you are sent to <strong>${esc(input.returnHost)}</strong>.</p>`;
  return layout(
    'Sign out',
    `<h1>Sign out?</h1>${who}${then}
<form method="post" action="${esc(input.action)}">${hidden('xsrf', input.xsrf)}
<button type="submit" name="logout" value="yes">Sign out</button></form>
<p class="note">To stay signed in, close this page.</p>`,
  );
}

export interface ConsentOrganization {
  membershipId: string;
  name: string;
  slug: string;
}

export interface ConsentPageInput {
  csrf: string;
  uid: string;
  personEmail: string;
  clientName: string;
  clientHost: string;
  /** Why the client's identity deserves caution (loopback or unverified host), if it does. */
  warning?: string;
  organizations: readonly ConsentOrganization[];
  scopes: readonly { scope: string; words: string }[];
}

export function consentPage(input: ConsentPageInput): string {
  const warning =
    input.warning === undefined ? '' : `<p class="warning" role="note">${esc(input.warning)}</p>`;
  const only = input.organizations.length === 1 ? input.organizations[0] : undefined;
  const orgs =
    only !== undefined
      ? `<p>Organisation: <strong>${esc(only.name)}</strong></p>${hidden('membership', only.membershipId)}`
      : `<fieldset><legend>Which organisation may it read?</legend>${input.organizations
          .map(
            (o, i) =>
              `<label><input type="radio" name="membership" value="${esc(o.membershipId)}"${i === 0 ? ' checked' : ''} required> ${esc(o.name)} <span class="note">(${esc(o.slug)})</span></label>`,
          )
          .join('')}</fieldset>`;
  const scopes = input.scopes
    .map((s) => `<li>${esc(s.words)} <span class="note">(<code>${esc(s.scope)}</code>)</span></li>`)
    .join('');
  return layout(
    'Authorize access',
    `<h1>Allow <strong>${esc(input.clientName)}</strong> to read your organisation's data?</h1>
<p>The application at <strong>${esc(input.clientHost)}</strong> asks to act as you (<strong>${esc(input.personEmail)}</strong>).</p>${warning}
<form method="post" action="/consent/${esc(input.uid)}/confirm">${hidden('csrf', input.csrf)}
${orgs}<p>It will be able to:</p><ul>${scopes}</ul>
<p class="note">Read-only: it cannot change anything. You can disconnect it at any time from your tokens.</p>
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary" formnovalidate>Deny</button></form>
<form method="post" action="/signout">${hidden('csrf', input.csrf)}${hidden('return_to', `/consent/${input.uid}`)}
<p class="note">Not you? <button type="submit" class="secondary">Sign out</button></p></form>`,
  );
}

/** The signed-in person belongs to no organisation actively: nothing to grant, only to decline. */
export function noMembershipPage(input: {
  csrf: string;
  uid: string;
  personEmail: string;
}): string {
  return layout(
    'No organisation',
    `<h1>No organisation to connect</h1>
<p><strong>${esc(input.personEmail)}</strong> is not an active member of any organisation, so there is nothing this application could read.</p>
<form method="post" action="/consent/${esc(input.uid)}/confirm">${hidden('csrf', input.csrf)}
<button type="submit" name="decision" value="deny">Return to the application</button></form>
<form method="post" action="/signout">${hidden('csrf', input.csrf)}${hidden('return_to', `/consent/${input.uid}`)}
<p class="note">Use another account? <button type="submit" class="secondary">Sign out</button></p></form>`,
  );
}
