import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { hashTokenSecret } from '@app/identity';
import { BrowserAgent } from '../support/browser-agent.js';
import { latestMailTo } from '../support/mail-drop.js';
import type { Json } from '../support/mcp-peers.js';
import { authorizeInBrowser, pkceAuthorizeUrl } from '../support/oauth-client.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Dynamic Client Registration is bounded: a quota per client IP and one in total (per hour,
 * shared by every replica), and a registered client that no person authorizes expires.
 */

const REDIRECT = 'http://127.0.0.1:53685/callback';
const VERIFIER = 'registration-verifier-'.repeat(3);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const HOSTILE_NAME = 'Good Client\n\u001b[2K\u001b[1AFAKE LOG LINE \u202Egnp.exe\u202C';
const SHOWN_NAME = 'Good Client [2K[1AFAKE LOG LINE gnp.exe';

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

    // Its name as a hostile client sends it: a line break, ESC sequences, a bidi override.
    const used: Json = await (await register(t, HOSTILE_NAME)).json();
    expect(used.client_name).toBe(SHOWN_NAME);
    const url = pkceAuthorizeUrl(t.url, {
      clientId: used.client_id,
      redirectUri: REDIRECT,
      state: 's',
      challenge: CHALLENGE,
    });
    let consent = '';
    const callback = await authorizeInBrowser({
      browser: new BrowserAgent(t.url),
      authorizationUrl: url,
      redirectUrl: REDIRECT,
      email: 'olivia.owner@acme.test',
      readMail: (email) => latestMailTo(t, email),
      onConsentPage: (html) => (consent = html),
    });
    expect(callback.searchParams.get('code')).not.toBeNull();
    expect(await clientExpiry(t, used.client_id)).toBeNull();

    const exchanged = await fetch(`${t.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        redirect_uri: REDIRECT,
        client_id: used.client_id,
        code_verifier: VERIFIER,
      }),
    });
    expect(exchanged.status).toBe(200);

    // The one normaliser: the consent page and both token lists show the same one line.
    expect(consent).toContain(SHOWN_NAME);
    expect(consent).not.toMatch(/\p{Cf}/u);
    expect(consent.includes('\u001b')).toBe(false);
    for (const path of ['/v1/me/tokens', '/v1/tokens']) {
      const page: Json = await (await t.request(`${path}?limit=100`, { token: 'owner' })).json();
      const names = page.data.map((row: Json) => row.client_name);
      expect(names).toContain(SHOWN_NAME);
      expect(
        names.filter((n: unknown) => typeof n === 'string' && /[\p{Cc}\p{Cf}]/u.test(n)),
      ).toEqual([]);
    }
  });
});
