import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import {
  CHROMIUM_MISSING,
  openChromiumPage,
  signInByMailLink,
  type ChromiumPage,
} from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auth,
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { skipWhen } from '../support/skip.js';
import type { Json } from '../support/mcp-peers.js';
import { InMemoryOAuthClient, mcpStatus, oauthForm } from '../support/oauth-client.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * The whole OAuth journey of an MCP client with a person at a real browser: the official v2 SDK
 * client registers itself (DCR) from the 401 alone, Debian's headless Chromium (driven by
 * playwright-core) opens the authorization URL, the person asks for a sign-in link, follows it
 * from the outbox, approves on the consent page, and the browser lands on the client's loopback
 * callback. The client then lists tools, reads, is refused a write with the product's advice,
 * refreshes through the SDK, revokes (RFC 7009), gets a 401 and authorizes again — this time the
 * browser is still signed in, so only the consent page is shown.
 *
 * Nothing here drives the pages by HTTP: every form is filled and submitted by Chromium, so the
 * pages' real HTML (form actions, button names, cookies, redirects) is what is tested.
 */

const OWNER = 'olivia.owner@acme.test';
/** Page loads and clicks on a loaded 2-core machine: generous, never a measurement. */
const STEP_MS = 60_000;

/** The client's loopback redirect target: records each callback URL the browser arrives at. */
interface CallbackServer {
  redirectUrl: string;
  /** Resolves with the next callback URL the browser is sent to. */
  next(): Promise<URL>;
  close(): Promise<void>;
}

async function startCallbackServer(): Promise<CallbackServer> {
  let waiting: ((url: URL) => void) | undefined;
  const arrived: URL[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname === '/callback') {
      if (waiting !== undefined) {
        waiting(url);
        waiting = undefined;
      } else arrived.push(url);
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Done</title><p>You can close this window.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- a TCP server's address is AddressInfo
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    redirectUrl: `${origin}/callback`,
    next: () => {
      const ready = arrived.shift();
      if (ready !== undefined) return Promise.resolve(ready);
      return new Promise<URL>((resolve) => (waiting = resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `promise`, or a failure naming where things stand after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, where: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no callback after ${ms} ms: ${where()}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('an MCP client authorized in headless Chromium', skipWhen(CHROMIUM_MISSING), () => {
  let t: TestServer | undefined;
  let callbacks: CallbackServer | undefined;
  let browser: ChromiumPage | undefined;
  let page: Page;
  let provider: InMemoryOAuthClient;
  let client: Client | undefined;

  const mcpUrl = (): URL => new URL(`${t!.url}/mcp`);

  async function connect(): Promise<Client> {
    const connected = new Client({ name: 'chromium-oauth-e2e', version: '1.0.0' });
    await connected.connect(
      new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }),
    );
    return connected;
  }

  /**
   * The client's side of an authorization: connect, get the 401, let the SDK discover and
   * (first time) register, then have Chromium take the person through it; returns the consent
   * page's text and the signed-in state seen on the way.
   */
  async function authorizeInChromium(): Promise<{ consent: string; signInNotice?: string }> {
    const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    const first = new Client({ name: 'chromium-oauth-e2e', version: '1.0.0' });
    provider.authorizationUrl = undefined;
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const authorizationUrl = provider.authorizationUrl as URL | undefined;
    expect(authorizationUrl, 'the SDK asked for an authorization').toBeDefined();
    const callback = callbacks!.next();

    await page.goto(authorizationUrl!.href, { timeout: STEP_MS });
    let signInNotice: string | undefined;
    if (new URL(page.url()).pathname === '/signin') {
      signInNotice = await signInByMailLink(page, t!, OWNER, STEP_MS);
    }
    await page.waitForURL(/\/consent\//, { timeout: STEP_MS });
    const consent = await page.locator('body').innerText();
    await page.getByRole('button', { name: 'Allow' }).click({ timeout: STEP_MS });
    const arrived = await within(callback, STEP_MS, () => `the browser is at ${page.url()}`);
    // The browser really ended on the client's callback page.
    await page.waitForURL((url) => url.href.startsWith(callbacks!.redirectUrl), {
      timeout: STEP_MS,
    });
    expect(arrived.searchParams.get('iss')).toBe(t!.url);
    expect(arrived.searchParams.get('error')).toBeNull();
    await transport.finishAuth(arrived.searchParams);
    return { consent, signInNotice };
  }

  beforeAll(async () => {
    t = await startTestServer({ logLevel: 'error' });
    callbacks = await startCallbackServer();
    provider = new InMemoryOAuthClient(callbacks.redirectUrl, undefined, 'Chromium test client');
    browser = await openChromiumPage('oauth-chromium-', STEP_MS);
    page = browser.page;
  }, 240_000);

  afterAll(async () => {
    // Each clean-up runs whatever failed before it.
    try {
      await client?.close();
    } finally {
      try {
        await browser?.close();
      } finally {
        try {
          await callbacks?.close();
        } finally {
          await t?.close();
        }
      }
    }
  }, 180_000);

  it('registers by DCR, and the person signs in by e-mail link and approves in the browser', async () => {
    const { consent, signInNotice } = await authorizeInChromium();
    expect(provider.information?.client_id, 'registered by DCR').toBeDefined();
    expect(signInNotice).toContain('a one-time sign-in link is on its way');
    expect(consent).toContain('Chromium test client');
    expect(consent).toContain('Acme');
    expect(consent).toContain('See the portal users of the organisation');
    expect(provider.saved?.access_token).toMatch(/^oat_[0-9A-Za-z]{40}$/);
    expect(provider.saved?.refresh_token).toBeDefined();
    expect(browser!.pageErrors).toEqual([]);
  }, 300_000);

  it('lists tools and calls a read tool', async () => {
    client = await connect();
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['list_portal_users', 'create_portal_user']),
    );
    const result: Json = await client.callTool({ name: 'list_portal_users', arguments: {} });
    expect(result.isError ?? false).toBe(false);
    const listed: Json = JSON.parse(result.content[0].text);
    expect(Array.isArray(listed.data)).toBe(true);
  });

  it('a write tool is insufficient_scope, in the product’s words', async () => {
    const result: Json = await client!.callTool({
      name: 'create_portal_user',
      arguments: { email: 'chromium.write@example.com', name: 'Should Not Exist' },
    });
    expect(result.isError).toBe(true);
    const envelope: Json = JSON.parse(result.content[0].text);
    expect(envelope.error.code).toBe('insufficient_scope');
    expect(envelope.error.message).toBe(
      "This token's scopes do not reach this operation: it needs portal_users:write. " +
        'OAuth access is read-only today; use a personal token (pat_…) that carries portal_users:write.',
    );
  });

  it('refreshes through the SDK: new tokens, the old access token dies, the new one works', async () => {
    const before = provider.saved!;
    await expect(auth(provider, { serverUrl: mcpUrl() })).resolves.toBe('AUTHORIZED');
    const after = provider.saved!;
    expect(after.access_token).toMatch(/^oat_/);
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(await mcpStatus(mcpUrl(), before.access_token)).toBe(401);
    expect(await mcpStatus(mcpUrl(), after.access_token)).toBe(200);
  });

  it('revokes (RFC 7009): the access token is a 401 and the refresh token is dead', async () => {
    const tokens = provider.saved!;
    const response = await oauthForm(t!.url, '/oauth/revoke', {
      token: tokens.refresh_token!,
      token_type_hint: 'refresh_token',
      client_id: provider.information!.client_id,
    });
    expect(response.status).toBe(200);
    expect(await mcpStatus(mcpUrl(), tokens.access_token)).toBe(401);
    const refresh = await oauthForm(t!.url, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: provider.information!.client_id,
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('the client’s next call is refused, and authorizing again (still signed in) works', async () => {
    // The SDK tries its (revoked) refresh token, is told invalid_grant, drops its tokens and
    // asks for a new authorization.
    await expect(client!.listTools()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.saved).toBeUndefined();
    await client!.close();
    client = undefined;
    const registered = provider.information?.client_id;
    const { consent, signInNotice } = await authorizeInChromium();
    // Same registration, same browser session: straight to the consent page.
    expect(provider.information?.client_id).toBe(registered);
    expect(signInNotice).toBeUndefined();
    expect(consent).toContain('Chromium test client');
    client = await connect();
    const result: Json = await client.callTool({ name: 'list_portal_users', arguments: {} });
    expect(result.isError ?? false).toBe(false);
    expect(browser!.pageErrors).toEqual([]);
  }, 300_000);
});
