import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_PERMISSIONS } from '@app/access-vocabulary';
import { IdentityRepository, MembershipsRepository } from '@app/identity';
import { LocalMailDrop } from '@app/mail';
import { SignInLinkService } from '@app/oauth-server';
import { BrowserAgent, firstUrl, hiddenField } from '../support/browser-agent.js';
import { FakeSmtp } from '../support/fake-smtp.js';
import { latestMailTo } from '../support/mail-drop.js';
import type { Json } from '../support/mcp-peers.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Who can read a sign-in link: only its person. The mail never lands in an organisation's outbox
 * (whose admins read it), the form answers before anything about the address is looked up, one
 * address gets a few mails per quarter hour, and every sign-in is an audit event of the person's
 * organisations. Production without SMTP offers no e-mail sign-in at all.
 */

const GINA = 'gina.owner@globex.test';
const MAX = 'max.member@acme.test';

async function askForLink(t: TestServer, email: string, browser = new BrowserAgent(t.url)) {
  const form = await (await browser.fetch('/signin')).text();
  return browser.fetch('/signin', { form: { csrf: hiddenField(form, 'csrf'), email } });
}

async function useLink(t: TestServer, link: string, browser = new BrowserAgent(t.url)) {
  const page = await (await browser.fetch(link)).text();
  return browser.fetch('/signin/link', {
    form: { csrf: hiddenField(page, 'csrf'), token: hiddenField(page, 'token') },
  });
}

/** Every outbox message of the token's organisation (all pages). */
async function wholeOutbox(t: TestServer, token: string): Promise<Json[]> {
  const all: Json[] = [];
  let cursor: string | null = null;
  do {
    const page: Json = await (
      await t.request(`/v1/mail/outbox?limit=100${cursor === null ? '' : `&cursor=${cursor}`}`, {
        token,
      })
    ).json();
    all.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return all;
}

async function auditEvents(t: TestServer, token: string, action: string): Promise<Json[]> {
  const page: Json = await (
    await t.request(`/v1/audit-events?action=${action}&limit=100`, { token })
  ).json();
  return page.data;
}

describe('a sign-in link reaches its person only', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ logLevel: 'error', signInMailsPerAddress: 2 });
    // Gina owns Globex and is a viewer in Acme, whose owner is the attacker.
    const identity = t.server.app.get(IdentityRepository);
    const acme = (await identity.findOrganizationBySlug('acme'))!;
    const gina = (await identity.findUserByEmail(GINA))!;
    await t.server.app
      .get(MembershipsRepository)
      .add(acme.id, gina.id, 'viewer', ROLE_PERMISSIONS.viewer);
  });
  afterAll(async () => t?.close());

  it('an admin of another organisation cannot read it: no outbox holds it; the person can use it', async () => {
    // Acme's owner asks for a link for Gina, then reads every outbox they can.
    expect((await askForLink(t, GINA)).status).toBe(200);
    const link = firstUrl(await latestMailTo(t, GINA));
    for (const token of ['owner', 'globex_owner']) {
      const outbox = await wholeOutbox(t, token);
      expect(outbox.filter((m) => String(m.text).includes('/signin/link'))).toEqual([]);
      expect(outbox.filter((m) => String(m.to).toLowerCase() === GINA)).toEqual([]);
    }
    // Gina reads it from her own mail (here: the machine's local mail drop) and signs in.
    const browser = new BrowserAgent(t.url);
    expect((await useLink(t, link, browser)).status).toBe(303);
    const session: Json = await (await browser.fetch('/session')).json();
    expect(session.person.email).toBe(GINA);
  });

  it('sends at most the quota of mails to one address; the rest are refused and audited', async () => {
    const drop = new LocalMailDrop(t.server.config.dataDir);
    for (let i = 0; i < 4; i++) expect((await askForLink(t, MAX)).status).toBe(200);
    await t.server.app.get(SignInLinkService).settled();
    expect(await drop.newestTo(MAX, 10)).toHaveLength(2);

    const sent = (await auditEvents(t, 'owner', 'person.sign_in_link_sent')).filter(
      (e) => e.resource_label === MAX,
    );
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatchObject({
      channel: 'web',
      actor_type: 'anonymous',
      resource_type: 'person',
    });
    const refused = (await auditEvents(t, 'owner', 'person.sign_in_refused')).filter(
      (e) => e.resource_label === MAX,
    );
    expect(refused.map((e) => e.changes.reason.after)).toEqual([
      'too_many_links',
      'too_many_links',
    ]);
  });

  it('a sign-in and a reused link are audit events of each of the person’s organisations', async () => {
    await askForLink(t, GINA);
    const link = firstUrl(await latestMailTo(t, GINA));
    expect((await useLink(t, link)).status).toBe(303);
    expect((await useLink(t, link)).status).toBe(410);
    for (const token of ['owner', 'globex_owner']) {
      const signedIn = (await auditEvents(t, token, 'person.signed_in')).filter(
        (e) => e.resource_label === GINA,
      );
      expect(signedIn.length).toBeGreaterThanOrEqual(1);
      expect(signedIn[0]).toMatchObject({
        actor_type: 'person',
        actor_email: GINA,
        channel: 'web',
        changes: { method: { after: 'email_link' } },
      });
      const refused = (await auditEvents(t, token, 'person.sign_in_refused')).filter(
        (e) => e.resource_label === GINA,
      );
      expect(refused.map((e) => e.changes.reason.after)).toContain('link_used');
    }
    // Globex sees nothing about Acme-only people.
    const globexView = await auditEvents(t, 'globex_owner', 'person.sign_in_link_sent');
    expect(globexView.filter((e) => e.resource_label === MAX)).toEqual([]);
  });
});

/** The page as the two answers must share it: everything but the CSRF token and the address. */
function withoutCsrfAndAddress(html: string): string {
  return html.replace(/name="csrf" value="[^"]*"/, '').replace(/<strong>[^<]*<\/strong>/, '');
}

describe('the sign-in form answers before the mail is sent', () => {
  let smtp: FakeSmtp;
  let t: TestServer;
  beforeAll(async () => {
    smtp = await FakeSmtp.start();
    smtp.mode = 'hang';
    t = await startTestServer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, mailTimeoutMs: 60_000 });
  });
  afterAll(async () => {
    await smtp?.stop(); // the mail being sent fails now, so the server stops at once
    await t?.close();
  });

  it('a known address is answered while its mail service does not answer at all', async () => {
    const started = Date.now();
    const known = await askForLink(t, 'olivia.owner@acme.test');
    const unknown = await askForLink(t, 'nobody@nowhere.test');
    // On the request path this would wait for the mail service's 60 s timeout.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(withoutCsrfAndAddress(await known.text())).toBe(
      withoutCsrfAndAddress(await unknown.text()),
    );
  });
});

describe('production without SMTP', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ nodeEnv: 'production' });
  });
  afterAll(async () => t?.close());

  it('offers no e-mail sign-in, and nothing is mailed anywhere', async () => {
    expect(t.server.app.get(SignInLinkService).offered).toBe(false);
    const browser = new BrowserAgent(t.url);
    const form = await (await browser.fetch('/signin')).text();
    expect(form).toContain('not available on this server');
    expect(form).not.toContain('name="email"');
    // A form posted anyway (the browser's CSRF token from /session) is refused.
    const { csrf_token }: Json = await (await browser.fetch('/session')).json();
    const sent = await browser.fetch('/signin', {
      form: { csrf: csrf_token, email: 'olivia.owner@acme.test' },
    });
    expect(sent.status).toBe(404);
    await t.server.app.get(SignInLinkService).settled();
    expect(
      await new LocalMailDrop(t.server.config.dataDir).newestTo('olivia.owner@acme.test'),
    ).toEqual([]);
    expect(await wholeOutbox(t, 'owner')).toEqual([]);
  });
});
