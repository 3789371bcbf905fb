import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Provider } from 'oidc-provider';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { freePort } from '../support/built-server.js';
import { BrowserAgent } from '../support/browser-agent.js';
import type { Json } from '../support/mcp-peers.js';

/**
 * Signing in through the company's identity provider: a second, real `oidc-provider` started here
 * plays the IdP (its sign-in step answers with whoever `nextLogin` names); the server talks to it
 * with `openid-client`, unmocked: discovery, authorization code + PKCE, state, nonce, ID token.
 */

let t: TestServer;
let idp: Server;
let idpUrl: string;
let nextLogin: { email: string; verified: boolean } = { email: '', verified: true };

beforeAll(async () => {
  const [serverPort, idpPort] = await Promise.all([freePort(), freePort()]);
  idpUrl = `http://127.0.0.1:${idpPort}`;
  const accounts = new Map<string, { email: string; verified: boolean }>();
  const provider = new Provider(idpUrl, {
    clients: [
      {
        client_id: 'platform-mcp',
        client_secret: 'idp-test-secret-idp-test-secret',
        redirect_uris: [`http://127.0.0.1:${serverPort}/signin/oidc/callback`],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      return account === undefined
        ? undefined
        : {
            accountId: sub,
            claims: () => ({ sub, email: account.email, email_verified: account.verified }),
          };
    },
  });
  const callback = provider.callback();
  idp = createServer((req, res) => {
    if (!req.url?.startsWith('/interaction/')) {
      void callback(req, res);
      return;
    }
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const sub = `sub-${accounts.size + 1}`;
      accounts.set(sub, { ...nextLogin });
      const grant = new provider.Grant({
        accountId: sub,
        clientId: String(details.params.client_id),
      });
      grant.addOIDCScope('openid email');
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: sub }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    })();
  });
  await new Promise<void>((resolve) => idp.listen(idpPort, '127.0.0.1', resolve));
  t = await startTestServer({
    port: serverPort,
    oidcIssuer: idpUrl,
    oidcClientId: 'platform-mcp',
    oidcClientSecret: 'idp-test-secret-idp-test-secret',
  });
}, 120_000);

afterAll(async () => {
  await t?.close();
  idp?.close();
});

/** Follows redirects from /signin/oidc through the IdP and back; returns the last response. */
async function signInUpstream(browser: BrowserAgent, returnTo = '/session'): Promise<Response> {
  let response = await browser.fetch(`/signin/oidc?return_to=${encodeURIComponent(returnTo)}`);
  for (let hop = 0; hop < 10; hop++) {
    const location = response.headers.get('location');
    if (location === null) return response;
    const next = new URL(location, response.url);
    if (next.origin === t.url && next.pathname === returnTo) return response;
    response = await browser.fetch(next.href);
  }
  throw new Error('too many redirects');
}

describe('sign-in through the upstream OpenID Connect provider', () => {
  it('the sign-in page offers it', async () => {
    const page = await (await new BrowserAgent(t.url).fetch('/signin')).text();
    expect(page).toContain('Sign in with your company account');
  });

  it('a verified e-mail of a member signs the person in', async () => {
    nextLogin = { email: 'olivia.owner@acme.test', verified: true };
    const browser = new BrowserAgent(t.url);
    const last = await signInUpstream(browser);
    expect(last.status).toBe(303);
    expect(last.headers.get('location')).toBe('/session');
    const session: Json = await (await browser.fetch('/session')).json();
    expect(session.person.email).toBe('olivia.owner@acme.test');
  });

  it('an unverified e-mail is refused', async () => {
    nextLogin = { email: 'olivia.owner@acme.test', verified: false };
    const browser = new BrowserAgent(t.url);
    const last = await signInUpstream(browser);
    expect(last.status).toBe(403);
    expect(await last.text()).toContain('verified e-mail');
    const session: Json = await (await browser.fetch('/session')).json();
    expect(session.person).toBeNull();
  });

  it('an e-mail that is no active member is refused', async () => {
    nextLogin = { email: 'stranger@elsewhere.test', verified: true };
    const last = await signInUpstream(new BrowserAgent(t.url));
    expect(last.status).toBe(403);
    expect(await last.text()).toContain('No active member');
  });

  it('a callback without the browser’s pending state is refused', async () => {
    nextLogin = { email: 'olivia.owner@acme.test', verified: true };
    const victim = new BrowserAgent(t.url);
    const started = await victim.fetch('/signin/oidc?return_to=/session');
    const attacker = new BrowserAgent(t.url);
    // The attacker replays the IdP round trip in a browser that never started it.
    let response = await attacker.fetch(started.headers.get('location')!);
    for (let hop = 0; hop < 10 && response.headers.get('location') !== null; hop++) {
      const next = new URL(response.headers.get('location')!, response.url);
      if (next.origin === t.url) {
        response = await attacker.fetch(next.href);
        break;
      }
      response = await attacker.fetch(next.href);
    }
    expect(response.status).toBe(403);
    const session: Json = await (await attacker.fetch('/session')).json();
    expect(session.person).toBeNull();
  });
});
