import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { CHROMIUM_MISSING, launchChromium } from '../support/chromium.js';
import { skipWhen } from '../support/skip.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { firstUrl } from '../support/browser-agent.js';
import { latestMailTo } from '../support/mail-drop.js';
import {
  answer,
  askedOf,
  createPortalUser,
  modernToolCall,
} from '../support/mcp-confirmation-fixtures.js';

/**
 * The admin console in a real browser (Debian's Chromium driven by playwright-core): sign in with
 * the one-time e-mail link, see a seeded session of agent activity, filter it, open a call with
 * its confirmation and audit events, and revoke an OAuth client whose next MCP call is then a 401.
 * Screenshots of each page go to docs/images/ (`CONSOLE_SCREENSHOTS=1`); every page must load
 * without a console error (a Content-Security-Policy violation is one).
 */

const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1';
const IMAGES = resolve(fileURLToPath(new URL('../../docs/images', import.meta.url)));
const OWNER = 'olivia.owner@acme.test';

describe('admin console in Chromium', { timeout: 120_000, ...skipWhen(CHROMIUM_MISSING) }, () => {
  let t: TestServer;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const problems: string[] = [];
  let deleted: { id: string; email: string };

  /** A session of agent activity, through the real MCP endpoint. */
  async function seedAgentActivity(): Promise<void> {
    const owner = t.tokens.owner;
    const reader = t.tokens.oauth_reader;
    const claude = { clientName: 'Claude Desktop' };
    for (let i = 0; i < 3; i++) await modernToolCall(t.url, owner, 'list_accounts', {}, {}, claude);
    await modernToolCall(t.url, owner, 'list_portal_users', { status: 'active' }, {}, claude);
    await modernToolCall(
      t.url,
      owner,
      'get_account',
      { id: '00000000-0000-4000-8000-000000000000' },
      {},
      claude,
    );
    await modernToolCall(t.url, owner, 'no_such_tool', {}, {}, claude);
    // The agent deletes a portal user after the person confirms.
    deleted = await createPortalUser(t, 'Dora Deleted', 'dora.deleted@example.com');
    const asked = await modernToolCall(
      t.url,
      owner,
      'delete_portal_user',
      { id: deleted.id },
      {},
      claude,
    );
    const { key, requestState } = askedOf(asked);
    const done = await modernToolCall(
      t.url,
      owner,
      'delete_portal_user',
      { id: deleted.id },
      { requestState, inputResponses: answer(key, 'accept') },
      claude,
    );
    expect(done.body.result.isError).not.toBe(true);
    // A read-only OAuth client reads, then tries to write.
    const cursor = { clientName: 'Cursor' };
    await modernToolCall(t.url, reader, 'list_accounts', {}, {}, cursor);
    await modernToolCall(t.url, reader, 'create_account', { name: 'Nope Ltd' }, {}, cursor);
  }

  async function shot(name: string): Promise<void> {
    if (SCREENSHOTS) await page.screenshot({ path: join(IMAGES, `${name}.png`), fullPage: true });
  }

  beforeAll(async () => {
    t = await startTestServer({ logLevel: 'error' });
    await seedAgentActivity();
    profile = await mkdtemp(join(tmpdir(), 'console-chromium-'));
    if (SCREENSHOTS) await mkdir(IMAGES, { recursive: true });
    // A fresh profile of its own (the user-data-dir), removed afterwards.
    context = await launchChromium(profile, { viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    if (profile !== undefined) await rm(profile, { recursive: true, force: true });
    await t?.close();
  });

  it('signs in with the one-time e-mail link and lands on the activity', async () => {
    await page.goto(`${t.url}/admin/`);
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL(/\/signin\?return_to=%2Fadmin%2F/);
    await page.fill('input[name=email]', OWNER);
    await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
    await page.getByRole('status').waitFor();
    await page.goto(firstUrl(await latestMailTo(t, OWNER)));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${t.url}/admin/`);
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    await expect.poll(() => page.locator('table.rows tbody tr').count()).toBeGreaterThan(5);
    await page.locator('.chart-canvas canvas').waitFor();
    const text = await page.locator('table.rows').innerText();
    expect(text).toContain('list_accounts');
    expect(text).toContain('Claude Desktop');
    expect(text).toContain('Olivia Owner');
    expect(text).toContain('Refused');
    expect(text).toContain('Protocol error');
    // Milliseconds from navigation start (page-side code, as a string: no DOM types here).
    const timing = await page.evaluate(`({
      domContentLoaded: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
      sessionLoaded: performance.getEntriesByName('console:session')[0]?.startTime,
    })`);
    process.stderr.write(`admin console first render (after sign-in): ${JSON.stringify(timing)}\n`);
    await shot('console-activity');
  });

  it('filters by tool and opens a call with its confirmation and audit events', async () => {
    await page.locator('select[name=tool]').selectOption('delete_portal_user');
    await expect
      .poll(async () =>
        (await page.locator('table.rows tbody tr td:nth-child(2)').allInnerTexts()).every((c) =>
          c.startsWith('delete_portal_user'),
        ),
      )
      .toBe(true);
    expect(page.url()).toContain('tool=delete_portal_user');
    // The call that ran after the person confirmed.
    await page.locator('tr', { hasText: 'confirmed' }).getByRole('link').first().click();
    await page.getByRole('heading', { name: /Tool call/ }).waitFor();
    await page.getByText('Delete portal user Dora Deleted').waitFor();
    await page.getByText('portal_user.deleted').waitFor();
    expect(await page.locator('table.changes').first().innerText()).toContain(
      'dora.deleted@example.com',
    );
    await shot('console-call');

    await page.getByRole('link', { name: 'Open the confirmation' }).click();
    await page.getByRole('heading', { name: 'Confirmation' }).waitFor();
    expect(await page.locator('blockquote.question').innerText()).toContain('Dora Deleted');
    await page.getByText('consumed').first().waitFor();
    await shot('console-confirmation');
  });

  it('lists confirmations and the audit trail with channel badges and names', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByText('Confirmations').click();
    await page.getByRole('heading', { name: 'Confirmations' }).waitFor();
    await page.locator('table.rows tbody tr').first().waitFor();
    await shot('console-confirmations');

    await page.getByRole('navigation', { name: 'Console' }).getByText('Audit trail').click();
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    await page.locator('table.rows tbody tr').first().waitFor();
    const audit = await page.locator('table.rows').innerText();
    expect(audit).toContain('Agent (MCP)');
    expect(audit).toContain('API');
    expect(audit).toContain('portal_user.deleted');
    expect(audit).toContain('Olivia Owner');
    await shot('console-audit');
  });

  it('revokes an OAuth client behind a confirmation dialog; its next MCP call is a 401', async () => {
    const before = await modernToolCall(t.url, t.tokens.oauth_reader, 'list_accounts', {});
    expect(before.status).toBe(200);
    await page.getByRole('navigation', { name: 'Console' }).getByText('Clients and tokens').click();
    await page.getByRole('heading', { name: 'Connected clients and tokens' }).waitFor();
    const grants = page.locator('table.rows').first();
    await grants
      .getByRole('button', { name: /^Revoke/ })
      .first()
      .click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    // Keyboard: focus starts on Cancel, not on the destructive button.
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Cancel');
    await shot('console-revoke-dialog');
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText(/Its next request is refused with 401/).waitFor();
    await shot('console-tokens');

    const after = await modernToolCall(t.url, t.tokens.oauth_reader, 'list_accounts', {});
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('INVALID_TOKEN');
  });

  it('is usable by keyboard and readable on a narrow window', async () => {
    await page.goto(`${t.url}/admin/`);
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
    // Tab to the Confirmations link and follow it with Enter.
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate('document.activeElement?.textContent')) === 'Confirmations') break;
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Confirmations' }).waitFor();

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.url}/admin/`);
    await page.locator('table.rows tbody tr').first().waitFor();
    const overflow = await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await shot('console-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('logged no console error on any page (CSP violations included)', () => {
    expect(problems).toEqual([]);
  });
});
