import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import { parseFormBody, textRefusal } from '@app/common';
import { isVerifiedClient } from './client-metadata-rules.js';
import { messagePage, PAGE_SECURITY_HEADERS, signOutConfirmPage } from './pages.js';

/** The longest value any OAuth parameter may have (a PKCE verifier is 128, a state rarely 500). */
export const MAX_OAUTH_PARAMETER = 4096;
/** The most parameters one OAuth request may carry (an authorization request has about 12). */
const MAX_OAUTH_PARAMETERS = 64;
const PRINTABLE_NAME = /^[\w.-]{1,64}$/;

/**
 * Why the parameters of an OAuth request are refused, or `undefined`: the REST API's text rule
 * (no U+0000, no lone surrogate) and a length cap on every name and value, before oidc-provider
 * stores any of them (an authorization request is kept as `jsonb`, which cannot hold U+0000).
 */
export function oauthParameterRefusal(
  parameters: Readonly<Record<string, unknown>>,
): string | undefined {
  const entries = Object.entries(parameters);
  if (entries.length > MAX_OAUTH_PARAMETERS)
    return `a request may carry at most ${MAX_OAUTH_PARAMETERS} parameters`;
  for (const [name, raw] of entries) {
    // The name is echoed in the answer only when it is plainly a name.
    const shown = PRINTABLE_NAME.test(name) ? name : 'a parameter name';
    const whyName = textRefusal(name);
    if (whyName !== undefined) return `a parameter name must not contain ${whyName}`;
    if (name.length > MAX_OAUTH_PARAMETER)
      return `a parameter name must be at most ${MAX_OAUTH_PARAMETER} characters long`;
    for (const value of Array.isArray(raw) ? (raw as unknown[]) : [raw]) {
      if (typeof value !== 'string') continue;
      const why = textRefusal(value);
      if (why !== undefined) return `${shown} must not contain ${why}`;
      if (value.length > MAX_OAUTH_PARAMETER)
        return `${shown} must be at most ${MAX_OAUTH_PARAMETER} characters long`;
    }
  }
  return undefined;
}

/** The most a form body may hold, as oidc-provider's own reader allows. */
const MAX_FORM_BODY_BYTES = 56 * 1024;

/**
 * Why a form body posted to the OAuth server (token, revocation, the sign-out confirmation) is
 * refused, or `undefined`: well-formed UTF-8 ({@link parseFormBody}), then the rule of every OAuth
 * parameter. The body is read here, before the library, and handed back to it unread
 * ({@link replayBody}): the library parses exactly the bytes that were checked.
 */
async function formBodyRefusal(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += bytes.length;
    if (size > MAX_FORM_BODY_BYTES)
      return `the request body must be at most ${MAX_FORM_BODY_BYTES} bytes`;
    chunks.push(bytes);
  }
  const body = Buffer.concat(chunks, size);
  replayBody(req, body);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(body);
  const parsed = parseFormBody(text);
  return 'refusal' in parsed ? parsed.refusal : oauthParameterRefusal(parsed.fields);
}

/**
 * Lets the library read a request body that was already read: it reads `req` through
 * `readable` and `iterator()` only, and would otherwise fall back to a parsed `req.body` with a
 * plain-text warning on stderr.
 */
function replayBody(req: IncomingMessage, body: Buffer): void {
  Object.defineProperty(req, 'readable', { value: true, configurable: true });
  Object.defineProperty(req, 'iterator', {
    value: (options?: { destroyOnReturn?: boolean }) => Readable.from([body]).iterator(options),
    configurable: true,
  });
}

/** Koa's context, with what oidc-provider adds once it has matched a route. */
function matchedRoute(ctx: object): ctx is KoaContextWithOIDC {
  return 'oidc' in ctx && typeof ctx.oidc === 'object' && ctx.oidc !== null;
}

type KoaContext = Pick<KoaContextWithOIDC, 'status' | 'remove' | 'method' | 'type' | 'body'>;

/**
 * A page for what a browser is sent to (GET: authorization, sign-out), the OAuth error object for
 * what a client posts (token, revocation, registration).
 */
function answerError(ctx: KoaContext, error: string, description: string): void {
  ctx.status = 400;
  ctx.remove('location');
  if (ctx.method === 'GET') {
    ctx.type = 'html';
    ctx.body = messagePage('Authorization failed', `${error}: ${description}`);
  } else {
    ctx.body = { error, error_description: description };
  }
}

/** What failed in an authorization request, remembered between the library's event and our answer. */
const AUTHORIZATION_FAILURES = new WeakMap<object, { error: string; description: string }>();

/**
 * The rules this server adds around every request oidc-provider answers (its endpoints under
 * `/oauth` and its metadata):
 * - every response carries the page Content-Security-Policy (no script at all: the library's
 *   self-submitting forms cannot run) and frame protection, as our own pages do;
 * - every query parameter, and every parameter of a form body, meets
 *   {@link oauthParameterRefusal} (→ `invalid_request`) before the library sees it;
 * - an authorization request that fails before the person did anything is answered on our page,
 *   not by sending the browser to the client, unless the client is verified (RFC 9700 §4.11: a
 *   self-registered client's redirect URI is whatever anyone registered);
 * - signing out (RP-initiated logout) is a page the person confirms, and is refused for a client
 *   that is not verified.
 */
function remember(ctx: KoaContextWithOIDC, error: string, description: string): void {
  AUTHORIZATION_FAILURES.set(ctx, { error, description });
}

export function guardOAuthServer(provider: Provider): void {
  provider.on('authorization.error', (ctx: KoaContextWithOIDC, err: unknown) => {
    const { error, error_description } = (err ?? {}) as {
      error?: unknown;
      error_description?: unknown;
    };
    remember(
      ctx,
      typeof error === 'string' ? error : 'invalid_request',
      typeof error_description === 'string' ? error_description : 'The request is not valid',
    );
  });
  provider.on('server_error', (ctx: KoaContextWithOIDC) =>
    remember(ctx, 'server_error', 'The server could not complete the request'),
  );

  provider.use(async (ctx, next) => {
    for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) ctx.set(name, value);
    const refusal =
      oauthParameterRefusal(ctx.query) ??
      (ctx.method === 'POST' && ctx.is('application/x-www-form-urlencoded')
        ? await formBodyRefusal(ctx.req)
        : undefined);
    if (refusal !== undefined) return answerError(ctx, 'invalid_request', refusal);
    await next();
    if (!matchedRoute(ctx)) return;
    if (ctx.oidc.route === 'authorization') keepUnverifiedClientsOut(ctx);
    if (ctx.oidc.route === 'end_session' && ctx.status === 200) renderSignOut(ctx);
  });
}

function keepUnverifiedClientsOut(ctx: KoaContextWithOIDC): void {
  const failure = AUTHORIZATION_FAILURES.get(ctx);
  if (failure === undefined) return;
  const client = ctx.oidc.client;
  if (client !== undefined && isVerifiedClient(client)) return;
  answerError(ctx, failure.error, failure.description);
}

/**
 * The sign-out page (both of the library's cases: with and without a signed-in account): the
 * person presses the button; a client that is not verified cannot ask at all.
 */
export function renderSignOut(ctx: KoaContextWithOIDC): void {
  const client = ctx.oidc.client;
  if (client !== undefined && !isVerifiedClient(client)) {
    ctx.status = 400;
    ctx.type = 'html';
    ctx.body = messagePage(
      'Sign-out not available',
      'This application registered itself, so it cannot sign you out here. Nothing was changed.',
    );
    return;
  }
  const asked = ctx.oidc.params?.post_logout_redirect_uri;
  const target = typeof asked === 'string' ? URL.parse(asked) : null;
  const secret: unknown = ctx.oidc.session?.state?.secret;
  ctx.type = 'html';
  ctx.body = signOutConfirmPage({
    action: ctx.oidc.urlFor('end_session_confirm'),
    xsrf: typeof secret === 'string' ? secret : '',
    clientName: client === undefined ? undefined : (client.clientName ?? client.clientId),
    returnHost: target === null ? undefined : target.host,
  });
}
