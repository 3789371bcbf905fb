import type {
  OAuthClientMetadata,
  OAuthDiscoveryState,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { BrowserAgent, firstUrl, hiddenField } from './browser-agent.js';
import { parseMaybe } from './mcp-peers.js';

/**
 * The v2 SDK's OAuth client provider, kept in memory, as a native MCP client implements it: a
 * loopback redirect URI, and (optionally) a Client ID Metadata Document URL instead of DCR.
 */
export class InMemoryOAuthClient implements OAuthClientProvider {
  information?: StoredOAuthClientInformation;
  saved?: StoredOAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  discovery?: OAuthDiscoveryState;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
    readonly name = 'Test MCP client',
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.information;
  }
  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.information = info;
  }
  tokens(): StoredOAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  // Kept with the verifier, so the SDK can check that the callback comes from the authorization
  // server it started with.
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
  /** What a real client does when the server says its credentials are no longer valid. */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.information = undefined;
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = '';
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}

/**
 * What a person does in the browser between the client's redirect and its callback: follows the
 * authorization URL, signs in with the e-mail link when asked, and approves (or denies) on the
 * consent page. Returns the callback URL the browser is finally sent to.
 */
export async function authorizeInBrowser(options: {
  browser: BrowserAgent;
  authorizationUrl: URL;
  redirectUrl: string;
  email: string;
  readMail: (email: string) => Promise<string>;
  decision?: 'approve' | 'deny';
  onConsentPage?: (html: string) => void;
}): Promise<URL> {
  const { browser } = options;
  let next = options.authorizationUrl.href;
  let consented = false;
  for (let hop = 0; hop < 20; hop++) {
    if (next.startsWith(options.redirectUrl)) return new URL(next);
    const response = await browser.fetch(next);
    const location = response.headers.get('location');
    if (location !== null) {
      next = new URL(location, next).href;
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw new Error(`${response.status} at ${next}:\n${html}`);
    const url = new URL(next);
    if (url.pathname === '/signin') {
      const sent = await browser.fetch('/signin', {
        form: {
          csrf: hiddenField(html, 'csrf'),
          return_to: hiddenField(html, 'return_to'),
          email: options.email,
        },
      });
      if (sent.status !== 200) throw new Error(`sign-in form answered ${sent.status}`);
      const link = firstUrl(await options.readMail(options.email));
      const confirm = await (await browser.fetch(link)).text();
      const used = await browser.fetch('/signin/link', {
        form: { csrf: hiddenField(confirm, 'csrf'), token: hiddenField(confirm, 'token') },
      });
      const back = used.headers.get('location');
      if (back === null) throw new Error(`sign-in link answered ${used.status}`);
      next = new URL(back, next).href;
      continue;
    }
    if (url.pathname.startsWith('/consent/')) {
      // One decision per authorization: being asked again means the first was not recorded.
      if (consented) throw new Error(`asked to consent a second time, at ${next}:\n${html}`);
      consented = true;
      options.onConsentPage?.(html);
      const form: Record<string, string> = {
        csrf: hiddenField(html, 'csrf'),
        decision: options.decision ?? 'approve',
      };
      const membership = /name="membership" value="([^"]+)"/.exec(html)?.[1];
      if (membership !== undefined) form.membership = membership;
      const decided = await browser.fetch(`${url.pathname}/confirm`, { form });
      const after = decided.headers.get('location');
      if (after === null)
        throw new Error(`consent answered ${decided.status}: ${await decided.text()}`);
      next = new URL(after, next).href;
      continue;
    }
    throw new Error(`unexpected page at ${next}:\n${html}`);
  }
  throw new Error('too many redirects');
}

/**
 * The HTTP status of a 2025 `tools/list` on `mcpUrl` with these credentials, no SDK retry logic:
 * a string is a Bearer token, an object the authorization headers themselves (e.g. DPoP).
 */
export async function mcpStatus(
  mcpUrl: string | URL,
  credentials: string | Record<string, string>,
): Promise<number> {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      ...(typeof credentials === 'string'
        ? { authorization: `Bearer ${credentials}` }
        : credentials),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  await response.body?.cancel();
  return response.status;
}

/** What a test's authorization request names; the rest is fixed: a code, `portal_users:read`, S256. */
export interface PkceAuthorization {
  clientId: string;
  redirectUri: string;
  state: string;
  challenge: string;
  /** The `resource` indicator (left out when absent). */
  resource?: string;
}

/** `/oauth/authorize` on `base` for this request; `extra` adds or replaces parameters (`undefined` drops one). */
export function pkceAuthorizeUrl(
  base: string,
  a: PkceAuthorization,
  extra: Record<string, string | undefined> = {},
): URL {
  const url = new URL(`${base}/oauth/authorize`);
  const params: Record<string, string | undefined> = {
    client_id: a.clientId,
    redirect_uri: a.redirectUri,
    response_type: 'code',
    scope: 'portal_users:read',
    state: a.state,
    code_challenge: a.challenge,
    code_challenge_method: 'S256',
    resource: a.resource,
    ...extra,
  };
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url;
}

/**
 * POSTs `params` as a form to the OAuth server's `endpoint` (`/oauth/token`, `/oauth/revoke`) on
 * `baseUrl`; the status and the answer ({@link parseMaybe}: JSON, else its text; undefined if empty).
 */
export async function oauthForm(
  baseUrl: string,
  endpoint: string,
  params: Record<string, string>,
  headers: Record<string, string> = {},
  // oxlint-disable-next-line typescript/no-explicit-any -- answers are read field by field
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params),
  });
  return { status: response.status, body: parseMaybe(await response.text()) };
}
