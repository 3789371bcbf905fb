import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokensService } from '@app/identity';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { BrowserAgent } from '../support/browser-agent.js';
import type { Json } from '../support/mcp-peers.js';
import {
  authorizeInBrowser,
  InMemoryOAuthClient,
  mcpStatus as mcpStatusAt,
  oauthForm,
  pkceAuthorizeUrl,
} from '../support/oauth-client.js';
import { latestMailTo } from '../support/mail-drop.js';

/**
 * An MCP client connects by URL alone with the official v2 SDK's OAuth support: 401 → protected
 * resource metadata → authorization server metadata → Dynamic Client Registration → the person
 * signs in with the e-mail link and consents → token → tools; writes are refused as
 * insufficient_scope with the product's advice; refresh, revocation and re-authorization.
 */

let t: TestServer;
const OWNER = 'olivia.owner@acme.test';
const REDIRECT = 'http://127.0.0.1:53682/callback';

beforeAll(async () => {
  // The registration rules below register ~20 clients from one IP: above the per-IP quota.
  t = await startTestServer({ logLevel: 'error', oauthRegistrationsPerIpPerHour: 200 });
});
afterAll(async () => t?.close());

const readMail = (email: string): Promise<string> => latestMailTo(t, email);

async function connect(provider: InMemoryOAuthClient): Promise<Client> {
  const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { authProvider: provider }),
  );
  return client;
}

/**
 * The HTTP status of a tools/list on /mcp with this token: as a Bearer token, or (`dpopKey`) as a
 * DPoP-bound one with a fresh proof by that key.
 */
async function mcpStatus(token: string, dpopKey?: DpopKey): Promise<number> {
  return mcpStatusAt(
    `${t.url}/mcp`,
    dpopKey === undefined
      ? token
      : {
          authorization: `DPoP ${token}`,
          dpop: await dpopProof(dpopKey, 'POST', `${t.url}/mcp`, token),
        },
  );
}

/** Runs the whole interactive authorization once; returns a connected client. */
async function authorize(
  provider: InMemoryOAuthClient,
  browser = new BrowserAgent(t.url),
  email = OWNER,
) {
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
    authProvider: provider,
  });
  const first = new Client({ name: 'oauth-e2e', version: '1.0.0' });
  await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  let consentHtml = '';
  const callback = await authorizeInBrowser({
    browser,
    authorizationUrl: provider.authorizationUrl!,
    redirectUrl: REDIRECT,
    email,
    readMail,
    onConsentPage: (html) => (consentHtml = html),
  });
  expect(callback.searchParams.get('iss')).toBe(t.url);
  await transport.finishAuth(callback.searchParams);
  return { client: await connect(provider), consentHtml, browser };
}

describe('discovery names exactly what an OAuth client can be granted', () => {
  it('the PRM, the 401 challenge and the AS metadata all say: the three read scopes, nothing that writes', async () => {
    const READ = ['accounts:read', 'audit:read', 'portal_users:read'];
    const prm: Json = await (
      await fetch(`${t.url}/.well-known/oauth-protected-resource/mcp`)
    ).json();
    expect([...prm.scopes_supported].sort(byText)).toEqual(READ);

    const challenge = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(challenge.status).toBe(401);
    const scope = /scope="([^"]*)"/.exec(challenge.headers.get('www-authenticate') ?? '')?.[1];
    expect(scope?.split(' ').sort(byText)).toEqual(READ);

    const as: Json = await (await fetch(`${t.url}/.well-known/oauth-authorization-server`)).json();
    const grantable = as.scopes_supported.filter(
      (s: string) => s !== 'openid' && s !== 'offline_access',
    );
    expect([...grantable].sort(byText)).toEqual(READ);
  });
});

describe('the v2 SDK client authorizes by URL alone (DCR)', () => {
  let provider: InMemoryOAuthClient;
  let client: Client;
  let consentHtml = '';

  beforeAll(async () => {
    provider = new InMemoryOAuthClient(REDIRECT);
    const done = await authorize(provider);
    client = done.client;
    consentHtml = done.consentHtml;
  });
  afterAll(async () => client?.close());

  it('the consent page named the client, its unverified status, the organisation and the scopes in words', () => {
    expect(consentHtml).toContain('Test MCP client');
    expect(consentHtml).toContain('registered itself');
    expect(consentHtml).toContain('Acme');
    expect(consentHtml).toContain('See the portal users of the organisation');
    expect(consentHtml).toContain('Read the organisation’s audit trail');
  });

  it('gets an opaque oat_ access token bound to the MCP URL, and a refresh token', () => {
    expect(provider.saved?.access_token).toMatch(/^oat_[0-9A-Za-z]{40}$/);
    expect(provider.saved?.refresh_token).toBeDefined();
    expect(provider.saved?.scope?.split(' ').sort(byText)).toEqual([
      'accounts:read',
      'audit:read',
      'portal_users:read',
    ]);
    expect(provider.information?.client_id).toBeDefined();
  });

  it('lists tools and calls a read tool', async () => {
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain('list_portal_users');
    const result: Json = await client.callTool({ name: 'list_portal_users', arguments: {} });
    expect(result.isError ?? false).toBe(false);
  });

  it('a write tool is insufficient_scope with the advice that a personal token can write', async () => {
    const result: Json = await client.callTool({
      name: 'create_portal_user',
      arguments: { email: 'new.person@example.com', name: 'New Person' },
    });
    expect(result.isError).toBe(true);
    const envelope = JSON.parse(result.content[0].text);
    expect(envelope.error.code).toBe('insufficient_scope');
    expect(envelope.error.message).toContain('OAuth access is read-only today');
    expect(envelope.error.message).toContain('personal token');
  });

  it('refreshes: a new access token, the refresh token rotates, the old access token dies', async () => {
    const before = provider.saved!;
    const { status, body } = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: before.refresh_token!,
      client_id: provider.information!.client_id,
    });
    expect(status).toBe(200);
    expect(body.access_token).toMatch(/^oat_/);
    expect(body.refresh_token).not.toBe(before.refresh_token);
    expect(await mcpStatus(before.access_token)).toBe(401);
    expect(await mcpStatus(body.access_token)).toBe(200);
    provider.saveTokens({ ...before, ...body });
    const me: Json = await client.callTool({ name: 'get_current_context', arguments: {} });
    expect(me.isError ?? false).toBe(false);
  });
});

/** A client registered by DCR, driven by hand (no SDK) to probe each refusal. */
async function registerClient(redirect = REDIRECT): Promise<string> {
  const response = await fetch(`${t.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Probe client',
      redirect_uris: [redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  const body: Json = await response.json();
  expect(response.status).toBe(201);
  return body.client_id;
}

const byText = (a: string, b: string): number => a.localeCompare(b);

const VERIFIER = 'a'.repeat(20) + 'B'.repeat(23) + '-._~0123456789';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

function authorizeUrl(clientId: string, extra: Record<string, string | undefined> = {}): URL {
  const request = { clientId, redirectUri: REDIRECT, state: 'st4te', challenge: CHALLENGE };
  return pkceAuthorizeUrl(t.url, { ...request, resource: `${t.url}/mcp` }, extra);
}

async function tokenRequest(
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  return oauthForm(t.url, '/oauth/token', params, headers);
}

type DpopKey = Awaited<ReturnType<typeof generateKeyPair>>;

/** A DPoP proof (RFC 9449) for one request, signed by `key`; `ath` when a token goes with it. */
async function dpopProof(
  key: DpopKey,
  method: string,
  url: string,
  accessToken?: string,
): Promise<string> {
  return new SignJWT({
    htm: method,
    htu: url,
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    ...(accessToken === undefined
      ? {}
      : { ath: createHash('sha256').update(accessToken).digest('base64url') }),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(key.publicKey) })
    .sign(key.privateKey);
}

async function register(metadata: Json): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${t.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Registration probe',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  });
  return { status: response.status, body: await response.json() };
}

describe('dynamic client registration: OAuth 2.1 redirect URIs, application_type, text rules and caps', () => {
  it.each([
    [
      'http that is not loopback',
      { redirect_uris: ['http://app.example/cb'] },
      'invalid_redirect_uri',
    ],
    ['userinfo', { redirect_uris: ['https://user:pw@app.example/cb'] }, 'invalid_redirect_uri'],
    [
      'userinfo on loopback',
      { redirect_uris: ['http://x@127.0.0.1:5000/cb'] },
      'invalid_redirect_uri',
    ],
    ['a fragment', { redirect_uris: ['https://app.example/cb#x'] }, 'invalid_redirect_uri'],
    [
      'a private-use scheme for a web app',
      { redirect_uris: ['com.example.app:/cb'] },
      'invalid_redirect_uri',
    ],
    [
      'a scheme that names no domain, native',
      { application_type: 'native', redirect_uris: ['myapp:/cb'] },
      'invalid_redirect_uri',
    ],
    [
      'javascript:, native',
      { application_type: 'native', redirect_uris: ['javascript:alert(1)//'] },
      'invalid_redirect_uri',
    ],
    ['an unknown application_type', { application_type: 'desktop' }, 'invalid_client_metadata'],
    [
      'post_logout_redirect_uris from a self-registered client',
      { post_logout_redirect_uris: ['https://evil.example/'] },
      'invalid_client_metadata',
    ],
    ['U+0000 in client_name', { client_name: 'a\u0000b' }, 'invalid_client_metadata'],
    ['a lone surrogate in client_name', { client_name: 'x\ud800' }, 'invalid_client_metadata'],
    [
      'U+0000 in a redirect URI',
      { redirect_uris: ['http://127.0.0.1:5000/c\u0000'] },
      'invalid_redirect_uri',
    ],
    ['a 201-character client_name', { client_name: 'n'.repeat(201) }, 'invalid_client_metadata'],
    [
      'a 3000-character client_uri',
      { client_uri: `https://app.example/${'u'.repeat(3000)}` },
      'invalid_client_metadata',
    ],
    [
      'eleven redirect URIs',
      { redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:${5000 + i}/cb`) },
      'invalid_redirect_uri',
    ],
    [
      'an over-long contact',
      { contacts: [`${'c'.repeat(400)}@app.example`] },
      'invalid_client_metadata',
    ],
  ])('refuses %s', async (_what, metadata, error) => {
    const answer = await register(metadata);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe(error);
  });

  it.each([
    ['https, web', { redirect_uris: ['https://app.example/cb'] }, 'web'],
    [
      'loopback http (a native app by its URIs)',
      { redirect_uris: ['http://[::1]:5000/cb'] },
      'native',
    ],
    [
      'a private-use scheme named after a domain, native',
      { application_type: 'native', redirect_uris: ['com.example.app:/oauth/cb'] },
      'native',
    ],
  ])('accepts %s', async (_what, metadata, type) => {
    const answer = await register(metadata);
    expect(answer.status).toBe(201);
    expect(answer.body.application_type).toBe(type);
  });
});

describe('refusals of the authorization server', () => {
  let browser: BrowserAgent;
  let clientId: string;

  /** The callback URL after the person (already signed in) decides. */
  async function decide(url: URL, decision: 'approve' | 'deny' = 'approve'): Promise<URL> {
    return authorizeInBrowser({
      browser,
      authorizationUrl: url,
      redirectUrl: REDIRECT,
      email: OWNER,
      readMail,
      decision,
    });
  }

  async function codeFor(url = authorizeUrl(clientId)): Promise<string> {
    const callback = await decide(url);
    const code = callback.searchParams.get('code');
    if (code === null) throw new Error(`no code in ${callback.href}`);
    return code;
  }

  /** The token request for a fresh code (the person consents), as the registered client sends it. */
  async function codeExchange(): Promise<Record<string, string>> {
    return {
      grant_type: 'authorization_code',
      code: await codeFor(),
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: VERIFIER,
    };
  }

  beforeAll(async () => {
    browser = new BrowserAgent(t.url);
    clientId = await registerClient();
  });

  it('deny on the consent page → access_denied to the client, with iss', async () => {
    const callback = await decide(authorizeUrl(clientId), 'deny');
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe('st4te');
    expect(callback.searchParams.get('iss')).toBe(t.url);
  });

  /** An authorization request of a self-registered client that fails before anyone acted. */
  async function refusedOnOurPage(url: URL): Promise<string> {
    const response = await browser.fetch(url.href);
    expect(response.status, url.href).toBe(400);
    expect(response.headers.get('location'), 'never sent to the client').toBeNull();
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    return response.text();
  }

  it('a write scope → invalid_scope on our page (a self-registered client is not redirected to), advising a personal token', async () => {
    const page = await refusedOnOurPage(authorizeUrl(clientId, { scope: 'portal_users:write' }));
    expect(page).toContain('invalid_scope');
    expect(page).toContain('personal token');
  });

  it('no PKCE, or plain PKCE → refused before any sign-in, on our page', async () => {
    for (const extra of [
      { code_challenge: undefined, code_challenge_method: undefined },
      { code_challenge: VERIFIER, code_challenge_method: 'plain' },
    ]) {
      expect(await refusedOnOurPage(authorizeUrl(clientId, extra))).toContain('invalid_request');
    }
  });

  it('U+0000 in any authorization parameter → invalid_request naming it, on our page; nothing stored', async () => {
    for (const name of ['state', 'ui_locales', 'login_hint', 'nonce', 'scope', 'prompt']) {
      const page = await refusedOnOurPage(authorizeUrl(clientId, { [name]: 'a\u0000b' }));
      expect(page).toContain(`${name} must not contain the character U+0000`);
    }
    const long = await refusedOnOurPage(authorizeUrl(clientId, { state: 's'.repeat(5000) }));
    expect(long).toContain('state must be at most');
  });

  it('RP-initiated logout: a self-registered client cannot ask; without a client the person confirms on a scriptless page', async () => {
    const refused = await browser.fetch(`/oauth/session/end?client_id=${clientId}`);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('cannot sign you out');
    const page = await browser.fetch('/oauth/session/end');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).not.toContain('<script');
    expect(html).toContain('<button type="submit" name="logout" value="yes">');
  });

  it('a redirect URI that is not registered → an error page, never a redirect there', async () => {
    const response = await browser.fetch(
      authorizeUrl(clientId, { redirect_uri: 'https://attacker.example/cb' }).href,
    );
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('redirect_uri');
  });

  it('a loopback redirect URI on another port is accepted (RFC 8252)', async () => {
    const other = 'http://127.0.0.1:61000/callback';
    const url = authorizeUrl(clientId, { redirect_uri: other });
    const callback = await authorizeInBrowser({
      browser,
      authorizationUrl: url,
      redirectUrl: other,
      email: OWNER,
      readMail,
    });
    expect(callback.searchParams.get('code')).not.toBeNull();
  });

  it('a wrong code verifier → invalid_grant', async () => {
    const refused = await tokenRequest({
      ...(await codeExchange()),
      code_verifier: 'x'.repeat(43),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
  });

  it('code reuse → invalid_grant, and the tokens issued from it stop working', async () => {
    const params = await codeExchange();
    const first = await tokenRequest(params);
    expect(first.status).toBe(200);
    expect(await mcpStatus(first.body.access_token)).toBe(200);
    const second = await tokenRequest(params);
    expect(second.body.error).toBe('invalid_grant');
    expect(await mcpStatus(first.body.access_token)).toBe(401);
    const refresh = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token,
      client_id: clientId,
    });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('refresh token reuse → invalid_grant, and the whole grant is revoked', async () => {
    const issued = await tokenRequest(await codeExchange());
    const params = {
      grant_type: 'refresh_token',
      refresh_token: issued.body.refresh_token,
      client_id: clientId,
    };
    const rotated = await tokenRequest(params);
    expect(rotated.status).toBe(200);
    const reused = await tokenRequest(params);
    expect(reused.body.error).toBe('invalid_grant');
    expect(await mcpStatus(rotated.body.access_token)).toBe(401);
    const next = await tokenRequest({ ...params, refresh_token: rotated.body.refresh_token });
    expect(next.body.error).toBe('invalid_grant');
  });

  it('a refused refresh (wrong resource, a scope it does not hold) leaves the refresh token usable; the grant lives on', async () => {
    const issued = await tokenRequest(await codeExchange());
    const params = {
      grant_type: 'refresh_token',
      refresh_token: issued.body.refresh_token,
      client_id: clientId,
    };
    for (const [extra, error] of [
      [{ resource: 'https://elsewhere.example/mcp' }, 'invalid_target'],
      [{ resource: `${t.url}/v1` }, 'invalid_target'],
      [{ scope: 'accounts:write' }, 'invalid_scope'],
    ] as const) {
      const refused = await tokenRequest({ ...params, ...extra });
      expect(refused.body.error, JSON.stringify(extra)).toBe(error);
    }
    const rotated = await tokenRequest({ ...params, resource: `${t.url}/mcp` });
    expect(rotated.status).toBe(200);
    expect(await mcpStatus(rotated.body.access_token)).toBe(200);
    const next = await tokenRequest({ ...params, refresh_token: rotated.body.refresh_token });
    expect(next.status).toBe(200);
  });

  it('a refused code exchange (wrong resource) leaves the code usable once', async () => {
    const params = await codeExchange();
    const refused = await tokenRequest({ ...params, resource: 'https://elsewhere.example/mcp' });
    expect(refused.body.error).toBe('invalid_target');
    const issued = await tokenRequest(params);
    expect(issued.status).toBe(200);
    expect(await mcpStatus(issued.body.access_token)).toBe(200);
    expect((await tokenRequest(params)).body.error).toBe('invalid_grant');
  });

  it('two refreshes racing with one refresh token: exactly one succeeds', async () => {
    const issued = await tokenRequest(await codeExchange());
    const params = {
      grant_type: 'refresh_token',
      refresh_token: issued.body.refresh_token,
      client_id: clientId,
    };
    const answers = await Promise.all([tokenRequest(params), tokenRequest(params)]);
    const won = answers.filter((a) => a.status === 200);
    expect(won.length, JSON.stringify(answers.map((a) => a.body.error))).toBeGreaterThanOrEqual(1);
    expect(won.length).toBeLessThanOrEqual(1);
  });

  it('DPoP: a token issued with a proof is bound to that key; /mcp takes it only with a proof by that key, never as Bearer; refresh keeps the binding', async () => {
    const key = await generateKeyPair('ES256');
    const tokenUrl = `${t.url}/oauth/token`;
    const issued = await tokenRequest(await codeExchange(), {
      dpop: await dpopProof(key, 'POST', tokenUrl),
    });
    expect(issued.status).toBe(200);
    expect(issued.body.token_type).toBe('DPoP');
    const token: string = issued.body.access_token;
    expect(await mcpStatus(token)).toBe(401);
    expect(await mcpStatus(token, key)).toBe(200);
    expect(await mcpStatus(token, await generateKeyPair('ES256'))).toBe(401);

    const refreshProof = await dpopProof(key, 'POST', tokenUrl);
    const refreshed = await tokenRequest(
      {
        grant_type: 'refresh_token',
        refresh_token: issued.body.refresh_token,
        client_id: clientId,
      },
      { dpop: refreshProof },
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.token_type).toBe('DPoP');
    expect(await mcpStatus(refreshed.body.access_token)).toBe(401);
    expect(await mcpStatus(refreshed.body.access_token, key)).toBe(200);

    // The token endpoint refuses a proof used before (and the refresh token stays usable).
    const next = {
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token,
      client_id: clientId,
    };
    const replayed = await tokenRequest(next, { dpop: refreshProof });
    expect(replayed.body.error).toBe('invalid_grant');
    const fresh = await tokenRequest(next, { dpop: await dpopProof(key, 'POST', tokenUrl) });
    expect(fresh.status).toBe(200);
  });

  it('RFC 7009 revocation of the access token ends the whole grant: the refresh token dies too', async () => {
    const issued = await tokenRequest(await codeExchange());
    expect(issued.body.refresh_token).toEqual(expect.any(String));
    expect(await mcpStatus(issued.body.access_token)).toBe(200);
    const revoked = await fetch(`${t.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: issued.body.access_token,
        token_type_hint: 'access_token',
        client_id: clientId,
      }),
    });
    expect(revoked.status).toBe(200);
    expect(await mcpStatus(issued.body.access_token)).toBe(401);
    const refresh = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: issued.body.refresh_token,
      client_id: clientId,
    });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('an OAuth token is refused by the REST API (its audience is the MCP URL)', async () => {
    const issued = await tokenRequest(await codeExchange());
    const rest = await t.request('/v1/me', { token: issued.body.access_token });
    expect(rest.status).toBe(401);
    const body: Json = await rest.json();
    expect(body.error.code).toBe('INVALID_TOKEN');
  });

  it('a token for another audience is refused by /mcp as INVALID_TOKEN', async () => {
    const tokens = t.server.app.get(TokensService);
    const me: Json = await (await t.request('/v1/me', { token: 'owner' })).json();
    const issued = await tokens.issue({
      organizationId: me.organization.id,
      userId: me.person.id,
      kind: 'oauth',
      name: 'elsewhere',
      scopes: ['portal_users:read'],
      audience: 'https://elsewhere.example/mcp',
    });
    expect(await mcpStatus(issued.secret)).toBe(401);
  });
});

describe('connected clients', () => {
  it('GET /v1/tokens lists the grant with its client name and last use; revoking it ends access and refresh, and re-authorization works', async () => {
    const provider = new InMemoryOAuthClient(REDIRECT, undefined, 'Connected clients probe');
    const { client } = await authorize(provider);
    const listed: Json = await client.callTool({ name: 'get_current_context', arguments: {} });
    expect(listed.isError ?? false).toBe(false);

    const page: Json = await (await t.request('/v1/tokens?limit=100', { token: 'owner' })).json();
    const grant = page.data.find((row: Json) => row.client_name === 'Connected clients probe');
    expect(grant).toMatchObject({ kind: 'oauth', status: 'active' });
    expect(grant.last_used_at).not.toBeNull();
    expect(grant.token_prefix.startsWith('oat_')).toBe(true);

    const revoked = await t.request(`/v1/tokens/${grant.id}`, { token: 'owner', method: 'DELETE' });
    expect(revoked.status).toBe(200);
    expect(await mcpStatus(provider.saved!.access_token)).toBe(401);
    const refresh = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: provider.saved!.refresh_token!,
      client_id: provider.information!.client_id,
    });
    expect(refresh.body.error).toBe('invalid_grant');
    await client.close();

    // The same client authorizes again (a new grant) and works.
    provider.saved = undefined;
    const again = await authorize(provider);
    const ok: Json = await again.client.callTool({ name: 'list_portal_users', arguments: {} });
    expect(ok.isError ?? false).toBe(false);
    await again.client.close();
  });

  it('a member who is not an admin lists and disconnects their own client (GET/DELETE /v1/me/tokens); another person’s grant is not found to them', async () => {
    const member = new InMemoryOAuthClient(REDIRECT, undefined, 'Member’s own client');
    const { client } = await authorize(member, new BrowserAgent(t.url), 'max.member@acme.test');
    await client.close();
    const owners = new InMemoryOAuthClient(REDIRECT, undefined, 'Owner’s other client');
    await (await authorize(owners)).client.close();

    // The organisation's token list stays for admins only.
    const all = await t.request('/v1/tokens', { token: 'member' });
    expect(all.status).toBe(403);

    const me: Json = await (await t.request('/v1/me', { token: 'member' })).json();
    const mine: Json = await (
      await t.request('/v1/me/tokens?limit=100', { token: 'member' })
    ).json();
    expect(mine.data.length).toBeGreaterThan(0);
    expect(mine.data.every((row: Json) => row.user_id === me.person.id)).toBe(true);
    const grant = mine.data.find((row: Json) => row.client_name === 'Member’s own client');
    expect(grant).toMatchObject({ kind: 'oauth', status: 'active' });
    expect(mine.data.some((row: Json) => row.client_name === 'Owner’s other client')).toBe(false);

    const everyone: Json = await (
      await t.request('/v1/tokens?limit=100', { token: 'owner' })
    ).json();
    const ownersGrant = everyone.data.find(
      (row: Json) => row.client_name === 'Owner’s other client',
    );
    const notTheirs = await t.request(`/v1/me/tokens/${ownersGrant.id}`, {
      token: 'member',
      method: 'DELETE',
    });
    expect(notTheirs.status).toBe(404);
    expect(await mcpStatus(owners.saved!.access_token)).toBe(200);

    const revoked = await t.request(`/v1/me/tokens/${grant.id}`, {
      token: 'member',
      method: 'DELETE',
    });
    expect(revoked.status).toBe(200);
    const revokedRow: Json = await revoked.json();
    expect(revokedRow.status).toBe('revoked');
    expect(await mcpStatus(member.saved!.access_token)).toBe(401);
    const refresh = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: member.saved!.refresh_token!,
      client_id: member.information!.client_id,
    });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('a client a member authorized through the real flow: deactivated → membership_inactive, reactivated → works, removed from the organisation → key_owner_not_member', async () => {
    const provider = new InMemoryOAuthClient(REDIRECT, undefined, 'Membership probe');
    const { client } = await authorize(provider, new BrowserAgent(t.url), 'max.member@acme.test');
    const members: Json = await (
      await t.request('/v1/members?limit=100', { token: 'owner' })
    ).json();
    const max: Json = members.data.find((m: Json) => m.email === 'max.member@acme.test');
    const setStatus = async (status: 'active' | 'inactive'): Promise<void> => {
      const res = await t.request(`/v1/members/${max.user_id}`, {
        method: 'PATCH',
        token: 'owner',
        json: { status },
      });
      expect(res.status).toBe(200);
    };
    const refusalOf = async (): Promise<string | undefined> => {
      const result: Json = await client.callTool({ name: 'list_portal_users', arguments: {} });
      return result.isError === true ? JSON.parse(result.content[0].text).error.code : undefined;
    };
    try {
      expect(await refusalOf()).toBeUndefined();
      await setStatus('inactive');
      expect(await refusalOf()).toBe('membership_inactive');
      await setStatus('active');
      expect(await refusalOf()).toBeUndefined();
      // No route removes a member yet: the row goes as a removal would take it.
      await t.server.app
        .get(DataSource)
        .query(`DELETE FROM memberships WHERE user_id = $1`, [max.user_id]);
      expect(await refusalOf()).toBe('key_owner_not_member');
    } finally {
      await client.close();
    }
  });
});
