import type { TestServer } from './test-server.js';
import { BrowserAgent, firstUrl, hiddenField } from './browser-agent.js';
import type { Json } from './mcp-peers.js';
import { latestMailTo } from './mail-drop.js';

/** Signs `email` in through the one-time link, as a browser would, and returns that browser. */
export async function signedInAgent(t: TestServer, email: string): Promise<BrowserAgent> {
  const browser = new BrowserAgent(t.url);
  const form = await (await browser.fetch('/signin?return_to=%2Fadmin%2F')).text();
  const sent = await browser.fetch('/signin', {
    form: { csrf: hiddenField(form, 'csrf'), return_to: hiddenField(form, 'return_to'), email },
  });
  if (sent.status !== 200) throw new Error(`sign-in form answered ${sent.status}`);
  const link = firstUrl(await latestMailTo(t, email));
  const page = await (await browser.fetch(link)).text();
  const used = await browser.fetch('/signin/link', {
    form: { csrf: hiddenField(page, 'csrf'), token: hiddenField(page, 'token') },
  });
  if (used.status !== 303) throw new Error(`sign-in link answered ${used.status}`);
  return browser;
}

/** What the console sends with each API call: the CSRF token, the organisation, same-origin. */
export async function consoleHeaders(
  browser: BrowserAgent,
  organizationSlug = 'acme',
): Promise<Record<string, string>> {
  const session: Json = await (await browser.fetch('/session')).json();
  const membership = session.person.memberships.find(
    (m: Json) => m.organization_slug === organizationSlug,
  );
  return {
    'x-csrf-token': String(session.csrf_token),
    'x-organization-id': String(membership.organization_id),
    'sec-fetch-site': 'same-origin',
  };
}
