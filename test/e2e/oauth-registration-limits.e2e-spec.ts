import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { hashTokenSecret } from '@app/identity';
import { BrowserAgent } from '../support/browser-agent.js';
import { latestMailTo } from '../support/mail-drop.js';
import type { Json } from '../support/mcp-peers.js';
import { authorizeInBrowser } from '../support/oauth-client.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Dynamic Client Registration is bounded: a quota per client IP and one in total (per hour,
 * shared by every replica), and a registered client that no person authorizes expires.
 */

const REDIRECT = 'http://127.0.0.1:53685/callback';
const VERIFIER = 'registration-verifier-'.repeat(3);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

function query<T>(t: TestServer, sql: string, params: unknown[] = []): Promise<T[]> {
  return t.server.app.get(DataSource).query<T[]>(sql, params);
}

function register(t: TestServer, name: string): Promise<Response> {
  return fetch(`${t.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    }),
  });
}

async function clientExpiry(t: TestServer, clientId: string): Promise<Date | null | undefined> {
  const rows = await query<{ expires_at: Date | null }>(
    t,
    `SELECT expires_at FROM oauth_records WHERE model = 'Client' AND id = $1`,
    [hashTokenSecret(clientId)],
  );
  return rows[0]?.expires_at;
}

describe('registration quota per client IP', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ oauthRegistrationsPerIpPerHour: 3, logLevel: 'error' });
  });
  afterAll(async () => t?.close());

  it('accepts the quota, then answers 429 with Retry-After and the way out', async () => {
    for (let i = 0; i < 3; i++) expect((await register(t, `client ${i}`)).status).toBe(201);
    const refused = await register(t, 'one too many');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const body: Json = await refused.json();
    expect(body.error).toBe('temporarily_unavailable');
    expect(body.error_description).toContain('Client ID Metadata Document');
    const stored = await query<{ n: number }>(
      t,
      `SELECT count(*)::int AS n FROM oauth_records WHERE model = 'Client'`,
    );
    expect(stored[0].n).toBe(3);
  });
});

describe('registration quota in total', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({
      oauthRegistrationsPerIpPerHour: 100,
      oauthRegistrationsPerHour: 2,
      logLevel: 'error',
    });
  });
  afterAll(async () => t?.close());

  it('refuses past the total, whatever the address', async () => {
    expect((await register(t, 'a')).status).toBe(201);
    expect((await register(t, 'b')).status).toBe(201);
    const refused = await register(t, 'c');
    expect(refused.status).toBe(429);
    const body: Json = await refused.json();
    expect(body.error_description).toContain('on this server');
  });
});

describe('unused registrations expire', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ oauthUnusedClientTtlSeconds: 3600, logLevel: 'error' });
  });
  afterAll(async () => t?.close());

  it('a client nobody authorized expires; one a person authorized is kept', async () => {
    const unused: Json = await (await register(t, 'never used')).json();
    const expiry = await clientExpiry(t, unused.client_id);
    expect(expiry).toBeInstanceOf(Date);
    const inSeconds = (expiry!.getTime() - Date.now()) / 1000;
    expect(inSeconds).toBeGreaterThan(3000);
    expect(inSeconds).toBeLessThanOrEqual(3600);

    // Past its expiry the client is unknown: its authorization request goes nowhere.
    await query(
      t,
      `UPDATE oauth_records SET expires_at = now() - interval '1 second' WHERE model = 'Client' AND id = $1`,
      [hashTokenSecret(unused.client_id)],
    );
    const gone = await fetch(
      `${t.url}/oauth/authorize?${String(
        new URLSearchParams({
          client_id: unused.client_id,
          redirect_uri: REDIRECT,
          response_type: 'code',
          scope: 'portal_users:read',
          code_challenge: CHALLENGE,
          code_challenge_method: 'S256',
        }),
      )}`,
      { redirect: 'manual' },
    );
    expect(gone.status).toBe(400);
    expect(await gone.text()).toContain('client is invalid');

    const used: Json = await (await register(t, 'authorized')).json();
    const url = new URL(`${t.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      client_id: used.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'portal_users:read',
      state: 's',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    const callback = await authorizeInBrowser({
      browser: new BrowserAgent(t.url),
      authorizationUrl: url,
      redirectUrl: REDIRECT,
      email: 'olivia.owner@acme.test',
      readMail: (email) => latestMailTo(t, email),
    });
    expect(callback.searchParams.get('code')).not.toBeNull();
    expect(await clientExpiry(t, used.client_id)).toBeNull();
  });
});
