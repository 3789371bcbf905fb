import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { SignInLinkService } from '@app/oauth-server';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { BrowserAgent, firstUrl, hiddenField } from '../support/browser-agent.js';
import type { Json } from '../support/mcp-peers.js';
import { latestMailTo as latestMailToServer } from '../support/mail-drop.js';

/**
 * A person signs in with a one-time e-mail link (without SMTP outside production: the mail goes
 * to the local mail drop), gets a session cookie, and signs out; every form refuses a missing
 * CSRF token.
 */

let t: TestServer;
const OWNER = 'olivia.owner@acme.test';

beforeAll(async () => {
  t = await startTestServer({ logLevel: 'error' });
});
afterAll(async () => t?.close());

const latestMailTo = (email: string): Promise<string> => latestMailToServer(t, email);

async function requestLink(
  browser: BrowserAgent,
  email: string,
  returnTo = '/session',
): Promise<string> {
  const form = await (
    await browser.fetch(`/signin?return_to=${encodeURIComponent(returnTo)}`)
  ).text();
  const sent = await browser.fetch('/signin', {
    form: { csrf: hiddenField(form, 'csrf'), return_to: hiddenField(form, 'return_to'), email },
  });
  expect(sent.status).toBe(200);
  expect(await sent.text()).toContain('a one-time sign-in link is on its way');
  return firstUrl(await latestMailTo(email));
}

async function useLink(browser: BrowserAgent, link: string): Promise<Response> {
  const page = await browser.fetch(link);
  expect(page.status).toBe(200);
  const html = await page.text();
  return browser.fetch('/signin/link', {
    form: { csrf: hiddenField(html, 'csrf'), token: hiddenField(html, 'token') },
  });
}

describe('signing in with a one-time e-mail link', () => {
  it('mails a link; using it signs the browser in and lands on return_to', async () => {
    const browser = new BrowserAgent(t.url);
    const link = await requestLink(browser, OWNER);
    expect(link.startsWith(`${t.url}/signin/link?token=`)).toBe(true);

    const signedIn = await useLink(browser, link);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/session');
    const setCookie = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('platform_session='));
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);

    const session: Json = await (await browser.fetch('/session')).json();
    expect(session.person.email).toBe(OWNER);
    expect(session.person.memberships.map((m: Json) => m.organization_slug)).toContain('acme');
    expect(session.csrf_token.length).toBeGreaterThan(20);
  });

  it('refuses the same link a second time', async () => {
    const browser = new BrowserAgent(t.url);
    const link = await requestLink(browser, OWNER);
    expect((await useLink(browser, link)).status).toBe(303);
    const other = new BrowserAgent(t.url);
    const again = await useLink(other, link);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('already used');
    expect(other.cookies.has('platform_session')).toBe(false);
  });

  it('refuses an expired link', async () => {
    const issued = await t.server.app.get(SignInLinkService).issue(OWNER, '/session');
    await t.server.app
      .get(DataSource)
      .query(
        `UPDATE sign_in_links SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND used_at IS NULL`,
        [issued.userId],
      );
    const browser = new BrowserAgent(t.url);
    const expired = await useLink(browser, issued.url);
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain('expired');
    expect(browser.cookies.has('platform_session')).toBe(false);
  });

  it('refuses a form without the CSRF token, and one with another browser’s token', async () => {
    const browser = new BrowserAgent(t.url);
    const link = await requestLink(browser, OWNER);
    const page = await (await browser.fetch(link)).text();
    const token = hiddenField(page, 'token');

    const missing = await browser.fetch('/signin/link', { form: { token } });
    expect(missing.status).toBe(403);
    const attacker = new BrowserAgent(t.url);
    const theirs = hiddenField(await (await attacker.fetch('/signin')).text(), 'csrf');
    const foreign = await browser.fetch('/signin/link', { form: { csrf: theirs, token } });
    expect(foreign.status).toBe(403);
    expect(browser.cookies.has('platform_session')).toBe(false);

    const noCsrf = await browser.fetch('/signin', { form: { email: OWNER } });
    expect(noCsrf.status).toBe(403);
  });

  it('says the same thing for an unknown address and sends nothing', async () => {
    const browser = new BrowserAgent(t.url);
    const form = await (await browser.fetch('/signin')).text();
    const sent = await browser.fetch('/signin', {
      form: { csrf: hiddenField(form, 'csrf'), email: 'nobody@nowhere.test' },
    });
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain('a one-time sign-in link is on its way');
    await expect(latestMailTo('nobody@nowhere.test')).rejects.toThrow('no mail');
  });

  it('only returns to paths on this server', async () => {
    const browser = new BrowserAgent(t.url);
    const link = await requestLink(browser, OWNER, '//evil.example/steal');
    const landed = await useLink(browser, link);
    expect(landed.headers.get('location')).toBe('/');
  });

  it('sends a signed-in browser asking for /signin only to a place on this server', async () => {
    const browser = new BrowserAgent(t.url);
    const issued = await t.server.app.get(SignInLinkService).issue(OWNER, '/session');
    expect((await useLink(browser, issued.url)).status).toBe(303);
    const hostile = [
      '/..//evil.example/x',
      '/%2e%2e//evil.example/x',
      '/admin/../..//evil.example/x',
      '/.//evil.example/x',
      '//evil.example/x',
      '/\\evil.example/x',
      'https://evil.example/x',
    ];
    for (const returnTo of hostile) {
      for (const query of [encodeURIComponent(returnTo), returnTo]) {
        const answer = await browser.fetch(`/signin?return_to=${query}`);
        expect(answer.status, returnTo).toBe(303);
        const location = answer.headers.get('location') ?? '';
        expect(new URL(location, t.url).origin, `${query} → ${location}`).toBe(
          new URL(t.url).origin,
        );
        expect(location.startsWith('//'), location).toBe(false);
      }
    }
    const kept = await browser.fetch(`/signin?return_to=${encodeURIComponent('/admin/audit?q=1')}`);
    expect(kept.headers.get('location')).toBe('/admin/audit?q=1');
  });

  it('signs out: the session ends and the cookie is cleared', async () => {
    const browser = new BrowserAgent(t.url);
    await useLink(browser, await requestLink(browser, OWNER));
    const cookie = browser.cookies.get('platform_session');
    const { csrf_token }: Json = await (await browser.fetch('/session')).json();

    const refused = await browser.fetch('/signout', { form: {} });
    expect(refused.status).toBe(403);
    const out = await browser.fetch('/signout', { form: { csrf: csrf_token } });
    expect(out.status).toBe(303);
    expect(browser.cookies.has('platform_session')).toBe(false);

    // The old cookie, replayed, no longer signs anyone in.
    const replay = new BrowserAgent(t.url);
    replay.cookies.set('platform_session', cookie!);
    const session: Json = await (await replay.fetch('/session')).json();
    expect(session.person).toBeNull();
  });
});
