import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import {
  CHROMIUM_MISSING,
  openChromiumPage,
  signInByMailLink,
  type ChromiumPage,
} from '../support/chromium.js';
import { confirmationIdOf, toolErrorCode } from '../support/mcp-confirmation-fixtures.js';
import {
  auditEvents,
  createPortalUser,
  portalUserStatus,
  setConfirmationPolicy,
} from '../support/confirmation-records.js';
import { capturingFetch, textJsonOf, type Json } from '../support/mcp-peers.js';
import { skipWhen } from '../support/skip.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Confirmation policy `verified` with the official SDK clients and a person at a real browser:
 * the client's URL-mode handler opens the server's page in headless Chromium (playwright-core),
 * the person signs in (one-time link from the mail drop) and presses Confirm, and the client's
 * retry deletes the portal user once. Someone else signed in sees a refusal and no Confirm
 * button; the page opened again after use is refused. The v2 client on 2026-07-28
 * (`input_required` with a URL-mode elicitation) and the v1 client on 2025-11-25
 * (`URLElicitationRequiredError`, then the same call again).
 */

const OWNER = 'olivia.owner@acme.test';
const MEMBER = 'max.member@acme.test';
/** Page loads and clicks on a loaded 2-core machine: generous, never a measurement. */
const STEP_MS = 60_000;
const URL_MODE = { elicitation: { url: {} } };

describe('verified confirmation in headless Chromium', skipWhen(CHROMIUM_MISSING), () => {
  let t: TestServer;
  let browser: ChromiumPage | undefined;
  let page: Page;

  beforeAll(async () => {
    t = await startTestServer({ logLevel: 'error' });
    await setConfirmationPolicy(t, 'delete_portal_user', { mode: 'verified' });
    browser = await openChromiumPage('verified-chromium-', STEP_MS);
    page = browser.page;
  }, 240_000);

  afterAll(async () => {
    try {
      await browser?.close();
    } finally {
      await t?.close();
    }
  }, 180_000);

  /**
   * Opens `url` as the person `email`: a browser signed in as nobody is sent to sign in, asks for
   * a link, follows it from the mail and comes back to the page. Returns the page's text.
   */
  async function openAs(url: string, email: string): Promise<string> {
    await page.goto(url, { timeout: STEP_MS });
    if (new URL(page.url()).pathname === '/signin') {
      await signInByMailLink(page, t, email, STEP_MS);
      await page.waitForURL(url, { timeout: STEP_MS });
    }
    return page.locator('body').innerText();
  }

  /** Confirms on the page (already open) and returns what it says afterwards. */
  async function pressConfirm(): Promise<string> {
    await Promise.all([
      page.waitForLoadState('load', { timeout: STEP_MS }),
      page.getByRole('button', { name: 'Confirm' }).click({ timeout: STEP_MS }),
    ]);
    await page.getByRole('heading', { name: 'Confirmed' }).waitFor({ timeout: STEP_MS });
    return page.locator('body').innerText();
  }

  async function v2Client(
    handler: (params: Json) => Promise<Json>,
  ): Promise<{ client: ClientV2; calls: () => Json[] }> {
    const { fetch, exchanges } = capturingFetch();
    const client = new ClientV2(
      { name: 'verified-e2e', version: '1.0.0' },
      { capabilities: URL_MODE, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => handler(request.params));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        fetch,
        requestInit: { headers: { authorization: `Bearer ${t.tokens.owner}` } },
      }),
    );
    return {
      client,
      calls: () => exchanges.filter((e) => e.requestBody?.method === 'tools/call'),
    };
  }

  it('v2 client, 2026-07-28: Olivia signs in on the page and confirms; the retry deletes once; the page after use is refused', async () => {
    await browser!.context.clearCookies();
    const target = await createPortalUser(t, 'Chromium Verified');
    const asked: Json[] = [];
    let pageText = '';
    let confirmedText = '';
    const { client, calls } = await v2Client(async (params) => {
      asked.push(params);
      pageText = await openAs(params.url, OWNER);
      confirmedText = await pressConfirm();
      return { action: 'accept' };
    });
    try {
      const result: Json = await client.callTool({
        name: 'delete_portal_user',
        arguments: { id: target.id },
      });
      expect(result.isError ?? false).toBe(false);
      expect(textJsonOf(result)).toEqual({ id: target.id, deleted: true });
    } finally {
      await client.close();
    }
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: 'url', url: expect.stringContaining('/confirm/') });
    expect(asked[0].message).toContain('Chromium Verified');
    expect(pageText).toContain('Confirm this action?');
    expect(pageText).toContain('Chromium Verified');
    expect(pageText).toContain(OWNER);
    expect(confirmedText).toContain('You confirmed it');

    // On the wire: the question, then one retry with its state, which ran the tool.
    const [ask, retry, ...more] = calls();
    expect(more).toEqual([]);
    expect(ask.responseBody.result.resultType).toBe('input_required');
    const requestState: string = ask.responseBody.result.requestState;
    expect(retry.requestBody.params.requestState).toBe(requestState);
    expect(retry.responseBody.result.resultType).toBe('complete');
    const id = confirmationIdOf(requestState);
    expect(asked[0].url).toBe(`${t.server.config.baseUrl}/confirm/${id}`);

    expect(await portalUserStatus(t, target.id)).toBe(404);
    const deleted = await auditEvents(t, { action: 'portal_user.deleted', resource_id: target.id });
    expect(deleted).toHaveLength(1);
    expect(deleted[0].confirmation_id).toBe(id);
    const decided = await auditEvents(t, { action: 'confirmation.confirmed', resource_id: id });
    expect(decided).toMatchObject([{ actor_name: 'Olivia Owner', channel: 'web' }]);

    // The URL replayed after use: refused, and nothing to press.
    const response = await page.goto(asked[0].url, { timeout: STEP_MS });
    expect(response?.status()).toBe(410);
    expect(await page.locator('body').innerText()).toContain('Already used');
    expect(await page.getByRole('button', { name: 'Confirm' }).count()).toBe(0);
    expect(browser!.pageErrors).toEqual([]);
  }, 300_000);

  it('v2 client: Max, signed in, is refused on Olivia’s page and cannot confirm; nothing is deleted', async () => {
    await browser!.context.clearCookies();
    const target = await createPortalUser(t, 'Chromium Not Yours');
    const asked: Json[] = [];
    let refusal = '';
    let status: number | undefined;
    let buttons: number | undefined;
    const { client } = await v2Client(async (params) => {
      asked.push(params);
      if (asked.length === 1) {
        refusal = await openAs(params.url, MEMBER);
        status = (await page.reload({ timeout: STEP_MS }))?.status();
        buttons = await page.getByRole('button', { name: 'Confirm' }).count();
        // Max says he went to the page; the server asks again, nothing was confirmed.
        return { action: 'accept' };
      }
      return { action: 'decline' };
    });
    try {
      const result: Json = await client.callTool({
        name: 'delete_portal_user',
        arguments: { id: target.id },
      });
      expect(toolErrorCode(result)).toBe('USER_DECLINED');
    } finally {
      await client.close();
    }
    expect(status).toBe(403);
    expect(buttons).toBe(0);
    expect(refusal).toContain('asked of another person');
    expect(refusal).toContain(MEMBER);
    expect(refusal).not.toContain('Chromium Not Yours');
    // Asked twice with the same page: Max's visit decided nothing.
    expect(asked).toHaveLength(2);
    expect(asked[1].url).toBe(asked[0].url);
    expect(await portalUserStatus(t, target.id)).toBe(200);
    const id = String(asked[0].url).split('/confirm/')[1];
    const refused = await auditEvents(t, { action: 'confirmation.refused', resource_id: id });
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatchObject({ actor_name: 'Max Member', channel: 'web' });
  }, 300_000);

  it('v1 client, 2025-11-25: URLElicitationRequiredError, Olivia confirms in Chromium, the same call then deletes once', async () => {
    await browser!.context.clearCookies();
    const target = await createPortalUser(t, 'Chromium Legacy');
    const client = new ClientV1(
      { name: 'verified-v1-e2e', version: '1.0.0' },
      { capabilities: URL_MODE },
    );
    await client.connect(
      new TransportV1(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${t.tokens.owner}` } },
      }),
    );
    try {
      const call = () =>
        client.callTool({ name: 'delete_portal_user', arguments: { id: target.id } });
      const first: unknown = await call().then(
        () => new Error('expected URLElicitationRequiredError'),
        (err: unknown) => err,
      );
      if (!(first instanceof UrlElicitationRequiredError)) throw first;
      const [elicitation] = first.elicitations;
      expect(elicitation).toMatchObject({
        mode: 'url',
        url: `${t.server.config.baseUrl}/confirm/${elicitation.elicitationId}`,
      });
      expect(elicitation.message).toContain('Chromium Legacy');
      expect(await portalUserStatus(t, target.id)).toBe(200);

      expect(await openAs(elicitation.url, OWNER)).toContain('Chromium Legacy');
      expect(await pressConfirm()).toContain('You confirmed it');

      const done: Json = await call();
      expect(done.isError ?? false).toBe(false);
      expect(await portalUserStatus(t, target.id)).toBe(404);
      const deleted = await auditEvents(t, {
        action: 'portal_user.deleted',
        resource_id: target.id,
      });
      expect(deleted).toHaveLength(1);
      expect(deleted[0].confirmation_id).toBe(elicitation.elicitationId);
      // The same URL once more: used.
      expect((await page.goto(elicitation.url, { timeout: STEP_MS }))?.status()).toBe(410);
    } finally {
      await client.close();
    }
  }, 300_000);
});
