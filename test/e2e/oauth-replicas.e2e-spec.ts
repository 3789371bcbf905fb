import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestReplica, startTestServer, type TestServer } from '../support/test-server.js';
import { BrowserAgent } from '../support/browser-agent.js';
import type { Json } from '../support/mcp-peers.js';
import { authorizeInBrowser, mcpStatus, pkceAuthorizeUrl } from '../support/oauth-client.js';
import { latestMailTo } from '../support/mail-drop.js';

/**
 * Two replicas on one database, behind one public URL: the person signs in and consents on one;
 * the client exchanges the code, calls /mcp and refreshes on the other. Nothing of the flow lives
 * in a process (interactions, codes, grants, refresh tokens, sessions, keys are all in Postgres).
 */

let a: TestServer;
let b: TestServer;
const OWNER = 'olivia.owner@acme.test';
const REDIRECT = 'http://127.0.0.1:53684/callback';
const VERIFIER = 'replica-verifier-'.repeat(3);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

beforeAll(async () => {
  a = await startTestServer();
  // Replicas share the database, the public URL (the issuer and the MCP resource) and the keys.
  b = await startTestReplica(a);
}, 120_000);

afterAll(async () => {
  await b?.close();
  await a?.close();
}, 120_000);

async function token(
  base: string,
  params: Record<string, string>,
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return { status: response.status, body: await response.json() };
}

describe('two replicas on one database', () => {
  it('authorize on one; exchange, use and refresh on the other', async () => {
    // The client registers on replica B.
    const registered = await fetch(`${b.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Replica client',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    });
    const registration: Json = await registered.json();
    const clientId: string = registration.client_id;

    // The person authorizes on replica A.
    const url = pkceAuthorizeUrl(a.url, {
      clientId,
      redirectUri: REDIRECT,
      state: 's',
      challenge: CHALLENGE,
    });
    const callback = await authorizeInBrowser({
      browser: new BrowserAgent(a.url),
      authorizationUrl: url,
      redirectUrl: REDIRECT,
      email: OWNER,
      readMail: (email) => latestMailTo(a, email),
    });
    const code = callback.searchParams.get('code');
    expect(code).not.toBeNull();

    // The code is redeemed on replica B, and the token works there and on A.
    const issued = await token(b.url, {
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: VERIFIER,
    });
    expect(issued.status).toBe(200);
    expect(await mcpStatus(`${b.url}/mcp`, issued.body.access_token)).toBe(200);
    expect(await mcpStatus(`${a.url}/mcp`, issued.body.access_token)).toBe(200);

    // Refresh on B; the old access token is dead on A at once, the new one works on A.
    const refreshed = await token(b.url, {
      grant_type: 'refresh_token',
      refresh_token: issued.body.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    expect(await mcpStatus(`${a.url}/mcp`, issued.body.access_token)).toBe(401);
    expect(await mcpStatus(`${a.url}/mcp`, refreshed.body.access_token)).toBe(200);

    // Reusing the first refresh token on A revokes the grant everywhere.
    const reused = await token(a.url, {
      grant_type: 'refresh_token',
      refresh_token: issued.body.refresh_token,
      client_id: clientId,
    });
    expect(reused.body.error).toBe('invalid_grant');
    expect(await mcpStatus(`${b.url}/mcp`, refreshed.body.access_token)).toBe(401);
  });
});
