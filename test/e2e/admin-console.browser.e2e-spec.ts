import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { DATE_TIME_PARTS } from '../../apps/admin-console/src/format.js';
import { CHROMIUM_MISSING, launchChromium } from '../support/chromium.js';
import { skipWhen } from '../support/skip.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import type { Json } from '../support/mcp-peers.js';
import { firstUrl } from '../support/browser-agent.js';
import { latestMailTo } from '../support/mail-drop.js';
import { answer, askedOf, modernToolCall } from '../support/mcp-confirmation-fixtures.js';
import { accountIdByName, createPortalUser } from '../support/confirmation-records.js';

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
/** The console's full date, in this browser's locale and time zone (en-GB, UTC). */
const CONSOLE_DATE = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', ...DATE_TIME_PARTS });

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
    // Another delete the person declines.
    const kept = await createPortalUser(t, 'Kim Kept', 'kim.kept@example.com');
    const askedAgain = await modernToolCall(
      t.url,
      owner,
      'delete_portal_user',
      { id: kept.id },
      {},
      claude,
    );
    const again = askedOf(askedAgain);
    await modernToolCall(
      t.url,
      owner,
      'delete_portal_user',
      { id: kept.id },
      { requestState: again.requestState, inputResponses: answer(again.key, 'decline') },
      claude,
    );
    // A former member's token still tries (refused: key_owner_not_member).
    await modernToolCall(t.url, t.tokens.former_member, 'list_accounts', {}, {}, claude);
    // A read-only OAuth client reads, then tries to write.
    const cursor = { clientName: 'Cursor' };
    await modernToolCall(t.url, reader, 'list_accounts', {}, {}, cursor);
    await modernToolCall(t.url, reader, 'create_account', { name: 'Nope Ltd' }, {}, cursor);
  }

  /**
   * Waits until keyboard focus is on the element `selector` names. The console moves focus in an
   * effect, which runs a moment after the render that shows the text, so reading
   * `document.activeElement` right after waiting for the text races it; this fails only if focus
   * never gets there.
   */
  async function focusLandsOn(selector: string): Promise<void> {
    await page.locator(`${selector}:focus`).waitFor({ timeout: 5_000 });
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
    // Names come from the history's facets, a request of their own: a row may show an id
    // fragment until they arrive, then the name.
    await expect.poll(() => page.locator('table.rows').innerText()).toContain('Olivia Owner');
    const text = await page.locator('table.rows').innerText();
    expect(text).toContain('list_accounts');
    expect(text).toContain('Claude Desktop');
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
        (await page.locator('table.rows tbody tr td:nth-child(2)').allInnerTexts()).filter(
          (c) => !c.startsWith('delete_portal_user'),
        ),
      )
      .toEqual([]);
    expect(page.url()).toContain('tool=delete_portal_user');
    // The call that ran after the person confirmed.
    await page.locator('tr', { hasText: 'confirmed' }).getByRole('link').first().click();
    await page.getByRole('heading', { name: /Tool call/ }).waitFor();
    await page.getByText('Delete portal user Dora Deleted').waitFor();
    await page.getByText('portal_user.deleted').waitFor();
    // Beside the confirmation's use, the deletion itself with what it removed.
    await page.getByText('confirmation.executed').waitFor();
    expect(
      await page
        .locator('li.card', { hasText: 'portal_user.deleted' })
        .locator('table.changes')
        .innerText(),
    ).toContain('dora.deleted@example.com');
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

  it('says on each history page how long it is kept and how far back its data goes', async () => {
    const res = await t.request('/v1/history/retention', { token: 'owner' });
    expect(res.status).toBe(200);
    const body: Json = await res.json();
    const data: Array<{ table: string; data_since: string | null }> = body.data;
    const since = (table: string): string => {
      const row = data.find((r) => r.table === table);
      expect(row?.data_since).toEqual(expect.any(String));
      return CONSOLE_DATE.format(new Date(row!.data_since!));
    };
    const pages: Array<[string, string, string]> = [
      ['Activity', 'mcp_tool_calls', 'Kept 90 days'],
      ['Confirmations', 'mcp_confirmations', 'Kept 90 days'],
      ['Audit trail', 'audit_events', 'Kept without limit'],
    ];
    for (const [link, table, kept] of pages) {
      await page.getByRole('navigation', { name: 'Console' }).getByText(link).click();
      await page.getByRole('heading', { name: link, exact: true }).waitFor();
      await expect
        .poll(() => page.locator('p.data-since').innerText())
        .toBe(`${kept}; data since ${since(table)}`);
    }
  });

  it('sets a tool’s confirmation policy by keyboard; the next MCP call follows it', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByText('Policies').click();
    await page.getByRole('heading', { name: 'Confirmation policies' }).waitFor();
    const select = page.getByLabel('Who decides delete_account');
    expect(await select.inputValue()).toBe('form');
    // A destructive tool offers no "nobody"; a write tool defaults to it.
    expect(
      await select.locator('option').evaluateAll((o) => o.map((x) => x.getAttribute('value'))),
    ).toEqual(['form', 'verified', 'approval']);
    const write = page.getByLabel('Who decides update_account');
    expect(await write.inputValue()).toBe('none');
    expect(await write.locator('option:checked').innerText()).toBe(
      'Nobody: runs at once (default)',
    );
    // Keyboard only: the mode with the arrow keys, Tab past the expiry to Save, Enter.
    await select.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await select.inputValue()).toBe('approval');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe(
      'Save the policy of delete_account',
    );
    await page.keyboard.press('Enter');
    const saved = page.getByRole('status').filter({ hasText: 'Saved' });
    await saved.waitFor();
    expect(await saved.innerText()).toContain('Admin approval');
    await focusLandsOn('[role="status"]');
    // The row now shows who changed it, at which version.
    await page.locator('tr', { hasText: 'delete_account' }).getByText('version 1').waitFor();
    await shot('console-policies');

    const call = await modernToolCall(t.url, t.tokens.owner, 'delete_account', {
      id: await accountIdByName(t, 'Umbrella Corp'),
    });
    const refusal: Json = JSON.parse(String(call.body.result.content[0].text));
    expect(refusal.error.code).toBe('approval_pending');
    expect(refusal.error.message).toContain('other than Olivia Owner');
  });

  it('approves another admin’s request on the Approvals page by keyboard; that agent’s retry runs once', async () => {
    // Max becomes a second admin; his agent asks to delete an account (the policy set above).
    const members: Json = await (await t.request('/v1/members', { token: 'owner' })).json();
    const max = members.data.find((m: Json) => m.email === 'max.member@acme.test');
    const promoted = await t.request(`/v1/members/${max.user_id}`, {
      method: 'PATCH',
      token: 'owner',
      json: { role: 'admin' },
    });
    expect(promoted.status).toBe(200);
    const created = await t.request('/v1/accounts', {
      method: 'POST',
      token: 'owner',
      json: { name: 'Wayne Enterprises' },
    });
    const account: Json = await created.json();
    const asked = await modernToolCall(
      t.url,
      t.tokens.member,
      'delete_account',
      { id: account.id },
      {},
      { capabilities: {}, clientName: 'Claude Desktop' },
    );
    expect(JSON.parse(String(asked.body.result.content[0].text)).error.code).toBe(
      'approval_pending',
    );

    await page.goto(`${t.url}/admin/`);
    const link = page.getByRole('navigation', { name: 'Console' }).getByRole('link', {
      name: /^Approvals/,
    });
    // Olivia's own request (from the policy test) and Max's wait.
    await link.getByText('2').waitFor();
    await link.click();
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    const requests = page.locator('li.approval');
    await requests.nth(1).waitFor();
    const own = requests.filter({ hasText: 'Olivia Owner' });
    expect(await own.innerText()).toContain('Your own request: another admin decides it.');
    expect(await own.getByRole('button').count()).toBe(0);
    const his = requests.filter({ hasText: 'Max Member' });
    const shown = await his.innerText();
    expect(shown).toContain('Wayne Enterprises');
    expect(shown).toContain(`{"id":"${account.id}"}`);
    expect(shown).toContain('Claude Desktop');
    await shot('console-approvals');

    // Keyboard only: focus Approve, Enter; the dialog starts on Cancel; Shift+Tab to the reason.
    await his.getByRole('button', { name: /^Approve delete_account/ }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await focusLandsOn('dialog button:text-is("Cancel")');
    await page.keyboard.press('Shift+Tab');
    await focusLandsOn('dialog textarea');
    await page.keyboard.type('Duplicate of Wayne Corp');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Approved' }).waitFor();
    await focusLandsOn('[role="status"]');
    await link.getByText('1').waitFor();
    const row = page.locator('table.rows tr', { hasText: 'Max Member' });
    expect(await row.innerText()).toContain('Duplicate of Wayne Corp');

    const retried = await modernToolCall(
      t.url,
      t.tokens.member,
      'delete_account',
      { id: account.id },
      {},
      { capabilities: {} },
    );
    expect(retried.body.result.isError).not.toBe(true);
    const gone = await t.request(`/v1/accounts/${account.id}`, { token: 'owner' });
    expect(gone.status).toBe(404);
    await page.reload();
    const done = page.locator('table.rows tr', { hasText: 'Max Member' });
    await done.getByText('executed').waitFor();

    // The history shows the chain: from the decided request to the call that ran, asked → who
    // approved where and why → ran (this call).
    await done.getByRole('link', { name: /^The call of request / }).click();
    await page.getByRole('heading', { name: /^Tool call/ }).waitFor();
    const steps = page.getByRole('list', { name: 'Approval steps' });
    await steps.waitFor();
    const chain = await steps.innerText();
    expect(chain).toMatch(/Asked .* by Max Member through Claude Desktop/);
    expect(chain).toMatch(/Approved .* by Olivia Owner on the admin console's Approvals page/);
    expect(chain).toContain('reason: «Duplicate of Wayne Corp»');
    expect(chain).toMatch(/Ran .*\(this call\)/);
    await shot('console-call-approval-chain');
  });

  it('denies a request only with a reason; that agent’s retry is told the reason, nothing is deleted', async () => {
    const created = await t.request('/v1/accounts', {
      method: 'POST',
      token: 'owner',
      json: { name: 'Stark Industries' },
    });
    const account: Json = await created.json();
    const noElicitation = { capabilities: {}, clientName: 'Claude Desktop' };
    await modernToolCall(
      t.url,
      t.tokens.member,
      'delete_account',
      { id: account.id },
      {},
      noElicitation,
    );
    await page.goto(`${t.url}/admin/approvals`);
    const his = page.locator('li.approval', { hasText: 'Stark Industries' });
    await his.getByRole('button', { name: /^Deny delete_account/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    // No reason: refused in the dialog, nothing sent.
    await dialog.getByRole('button', { name: 'Deny' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Say why you deny it' }).waitFor();
    await dialog.getByLabel('Reason (told to the agent)').fill('Stark stays a customer');
    await dialog.getByRole('button', { name: 'Deny' }).click();
    await page.getByRole('status').filter({ hasText: 'Denied' }).waitFor();
    const row = page.locator('table.rows tr', { hasText: 'Stark Industries' });
    expect(await row.innerText()).toContain('Stark stays a customer');

    const retried = await modernToolCall(
      t.url,
      t.tokens.member,
      'delete_account',
      { id: account.id },
      {},
      noElicitation,
    );
    const refusal: Json = JSON.parse(String(retried.body.result.content[0].text));
    expect(refusal.error.code).toBe('approval_denied');
    expect(refusal.error.message).toContain('Olivia Owner denied');
    expect(refusal.error.message).toContain('Stark stays a customer');
    expect((await t.request(`/v1/accounts/${account.id}`, { token: 'owner' })).status).toBe(200);
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
    await focusLandsOn('dialog button:text-is("Cancel")');
    await shot('console-revoke-dialog');
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText(/Its next request is refused with 401/).waitFor();
    // Keyboard focus is on what happened, not lost to <body>.
    await focusLandsOn('[role="status"]');
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
  });

  it('at 390 px every page fits the width and every control is on screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const confirmationHref = await page
      .locator('a[href^="/admin/confirmations/"]')
      .first()
      .getAttribute('href');
    const pages: { path: string; heading: RegExp }[] = [
      { path: '/admin/', heading: /^Activity$/ },
      { path: '/admin/confirmations', heading: /^Confirmations$/ },
      { path: confirmationHref ?? '/admin/confirmations', heading: /Confirmation/ },
      { path: '/admin/audit', heading: /^Audit trail$/ },
      { path: '/admin/tokens', heading: /^Connected clients and tokens$/ },
      { path: '/admin/policies', heading: /^Confirmation policies$/ },
      { path: '/admin/approvals', heading: /^Approvals$/ },
    ];
    const offScreen: string[] = [];
    try {
      for (const { path, heading } of pages) {
        await page.goto(`${t.url}${path}`);
        await page.getByRole('heading', { name: heading }).first().waitFor();
        await page.locator('main :is(table.rows tbody tr, dl, .empty)').first().waitFor();
        const width: number = await page.evaluate(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        if (width > 0) offScreen.push(`${path}: the page scrolls sideways by ${width} px`);
        // Every control and every table cell: rendered, and inside the 390 px (a closed dialog's
        // buttons excepted).
        const outside: string[] = await page.evaluate(`[...document.querySelectorAll(
            'main button, main a, main select, main input, main table.rows td')]
          .filter((e) => {
            // A closed dialog's buttons are not on the page until it opens.
            if (e.closest('dialog:not([open])') !== null) return false;
            const r = e.getBoundingClientRect();
            return r.width === 0 || r.height === 0 || r.left < 0 || r.right > window.innerWidth;
          })
          .map((e) => (e.getAttribute('data-label') ?? e.tagName) + ': ' + (e.textContent ?? '').trim().slice(0, 40))`);
        offScreen.push(...outside.map((o) => `${path}: ${o}`));
        if (path === '/admin/') await shot('console-narrow');
      }
      // The cells that were off-screen at 390 px are there, named.
      await page.goto(`${t.url}/admin/`);
      await page.locator('table.rows tbody tr').first().waitFor();
      const card = page.locator('table.rows tbody tr').first();
      for (const label of ['Person', 'Client', 'Duration', 'Era'])
        expect(await card.locator(`td[data-label="${label}"]`).isVisible(), label).toBe(true);
      await page.goto(`${t.url}/admin/tokens`);
      await page
        .getByRole('button', { name: /^Revoke/ })
        .first()
        .waitFor();
      await shot('console-narrow-tokens');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    expect(offScreen).toEqual([]);
  });

  it("ties a confirmation's two calls, counts a decline as a tool error, dates in the locale", async () => {
    await page.goto(`${t.url}/admin/`);
    await page.locator('table.rows tbody tr').first().waitFor();
    // The asked call and the call that ran carry the same confirmation reference.
    const confirmedRow = page.locator('tr', { hasText: 'confirmed ·' }).first();
    const reference = (await confirmedRow.locator('a.badge').innerText()).split('·')[1]?.trim();
    expect(reference).toMatch(/^#[0-9a-f]{8}$/);
    const pair = await page.locator('tr', { hasText: reference ?? '' }).allInnerTexts();
    expect(pair).toHaveLength(2);
    expect(pair.some((row) => row.includes('asked'))).toBe(true);
    // The declined delete: no "confirmed" badge; a tool error, as the README lists USER_DECLINED.
    const declined = page.locator('tr', { hasText: 'USER_DECLINED' }).first();
    const declinedText = await declined.innerText();
    expect(declinedText).toContain('declined ·');
    expect(declinedText).not.toContain('confirmed');
    expect(declinedText).toContain('Tool error');
    // Chart times in the browser's locale (en-GB here), not uPlot's US default.
    const chart = page.locator('.chart-canvas .u-over');
    await chart.hover();
    const when = await page.locator('.chart .u-legend .u-series').first().innerText();
    expect(when).toMatch(/\d{1,2} \w{3} \d{4}, \d{2}:\d{2}/);
    expect(when).not.toMatch(/\d\/\d/);

    await page.goto(`${t.url}/admin/audit`);
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    expect(await page.locator('select[name=channel] option').first().innerText()).toBe('Any');
  });

  it('logged no console error on any page (CSP violations included)', () => {
    expect(problems).toEqual([]);
  });
});
