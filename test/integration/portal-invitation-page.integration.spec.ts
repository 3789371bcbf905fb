import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { call, invitationTokenFor, snapshot, sql, type Json } from './platform-api.fixtures.js';

/**
 * The invitation link as a person clicks it: a page (not JSON, not a 404) that shows the
 * invitation and accepts it with a form that only this server's page can submit.
 */

const FORM = 'application/x-www-form-urlencoded';
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
};

function expectPageHeaders(res: Response): void {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) {
    expect(res.headers.get(name), name).toBe(value);
  }
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(res.headers.get('content-security-policy')).toContain("form-action 'self'");
}

/** The hidden form token of an invitation page. */
function formTokenOf(html: string): string {
  const match = html.match(/name="form_token" value="([^"]+)"/);
  if (!match) throw new Error('no form token on the page');
  return match[1];
}

describe('the invitation link in a browser', () => {
  let t: TestServer;
  let organizationName: string;
  beforeAll(async () => {
    t = await startTestServer();
    organizationName = (await call(t, 'GET', '/v1/me')).body.organization.name;
  });
  afterAll(async () => t?.close());

  async function invite(email: string, name: string): Promise<{ id: string; token: string }> {
    const created = await call(t, 'POST', '/v1/portal-users', { json: { email, name } });
    expect(created.status).toBe(201);
    return { id: created.body.id, token: await invitationTokenFor(t, email) };
  }

  function submit(token: string, body: string, headers: Record<string, string> = {}) {
    return t.request(`/v1/portal-invitations/${token}/accept`, {
      method: 'POST',
      headers: { 'content-type': FORM, 'sec-fetch-site': 'same-origin', ...headers },
      body,
    });
  }

  it('GET shows the organisation, the e-mail and an accept button, and changes nothing', async () => {
    const { id, token } = await invite('ines.page@example.com', 'Inês <Page>');
    const before = await snapshot(t);
    const res = await t.request(`/v1/portal-invitations/${token}/accept`);
    expect(res.status).toBe(200);
    expectPageHeaders(res);
    const html = await res.text();
    expect(html).toContain(organizationName);
    expect(html).toContain('ines.page@example.com');
    expect(html).toContain('Inês &lt;Page&gt;'); // escaped, never markup
    expect(html).toMatch(/<form method="post">[\s\S]*<button type="submit">Accept the invitation/);
    expect(html).not.toContain('<script');
    expect(await snapshot(t)).toBe(before);
    expect((await call(t, 'GET', `/v1/portal-users/${id}`)).body.status).toBe('invited');
  });

  it('the page’s button accepts once: an HTML confirmation, the user active, audited', async () => {
    const { id, token } = await invite('joao.page@example.com', 'João Page');
    const page = await (await t.request(`/v1/portal-invitations/${token}/accept`)).text();
    const res = await submit(token, `form_token=${encodeURIComponent(formTokenOf(page))}`);
    expect(res.status).toBe(200);
    expectPageHeaders(res);
    const html = await res.text();
    expect(html).toContain('Invitation accepted');
    expect(html).toContain(organizationName);
    expect((await call(t, 'GET', `/v1/portal-users/${id}`)).body.status).toBe('active');
    const events = (await call(t, 'GET', `/v1/audit-events?resource_id=${id}`)).body.data;
    expect(events.map((e: Json) => e.action)).toContain('portal_user.invitation_accepted');

    // Used: the link and the button both answer a clear page, not JSON.
    const again = await t.request(`/v1/portal-invitations/${token}/accept`);
    expect(again.status).toBe(404);
    expectPageHeaders(again);
    expect(await again.text()).toContain('This invitation link no longer works');
    const resubmit = await submit(token, `form_token=${encodeURIComponent(formTokenOf(page))}`);
    expect(resubmit.status).toBe(404);
    expect(await resubmit.text()).toContain('This invitation link no longer works');
  });

  it('an expired, unknown or malformed link is a clear page (404), never JSON', async () => {
    const { id, token } = await invite('kai.page@example.com', 'Kai Page');
    await sql(
      t,
      `UPDATE portal_users SET invitation_expires_at = now() - interval '1 minute' WHERE id = $1`,
      [id],
    );
    for (const secret of [token, 'x'.repeat(43), 'short', '%3Cscript%3E']) {
      const res = await t.request(`/v1/portal-invitations/${secret}/accept`);
      expect(res.status, secret).toBe(404);
      expectPageHeaders(res);
      const html = await res.text();
      expect(html).toContain('This invitation link no longer works');
      expect(html).not.toContain('<script>');
    }
  });

  it('a form without this server’s form token, or from another site, is refused and changes nothing', async () => {
    const { id, token } = await invite('lia.page@example.com', 'Lia Page');
    const other = await invite('max.page@example.com', 'Max Page');
    const otherPage = await (
      await t.request(`/v1/portal-invitations/${other.token}/accept`)
    ).text();
    const page = await (await t.request(`/v1/portal-invitations/${token}/accept`)).text();
    const before = await snapshot(t);
    const attempts: Array<[string, string, Record<string, string>]> = [
      ['no form token', '', {}],
      ['a made-up form token', 'form_token=abc', {}],
      ['another invitation’s form token', `form_token=${formTokenOf(otherPage)}`, {}],
      [
        'the right form token from another site',
        `form_token=${formTokenOf(page)}`,
        { 'sec-fetch-site': 'cross-site' },
      ],
    ];
    for (const [what, body, headers] of attempts) {
      const res = await submit(token, body, headers);
      expect(res.status, what).toBe(403);
      expectPageHeaders(res);
      expect(await res.text(), what).toContain('This request was refused');
    }
    expect(await snapshot(t)).toBe(before);
    expect((await call(t, 'GET', `/v1/portal-users/${id}`)).body.status).toBe('invited');
  });

  it('API clients keep POSTing without a form and get JSON (no-store)', async () => {
    const { id, token } = await invite('noa.page@example.com', 'Noa Page');
    const res = await t.request(`/v1/portal-invitations/${token}/accept`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toMatchObject({ portal_user_id: id, status: 'active' });
  });
});

describe('PORTAL_INVITATION_URL', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({
      portalInvitationUrl: 'https://portal.example.com/invite/{token}?lang=en',
    });
  });
  afterAll(async () => t?.close());

  it('the e-mail links to the portal’s own page; the secret still accepts the invitation here', async () => {
    const created = await call(t, 'POST', '/v1/portal-users', {
      json: { email: 'olga.portal@example.com', name: 'Olga' },
    });
    const mail = await call(t, 'GET', '/v1/mail/outbox?to=olga.portal%40example.com&limit=1');
    const text: string = mail.body.data[0].text;
    const match = text.match(
      /https:\/\/portal\.example\.com\/invite\/([A-Za-z0-9_-]{43})\?lang=en/,
    );
    expect(match, text).not.toBeNull();
    expect(text).not.toContain('/v1/portal-invitations/');
    const accepted = await t.request(`/v1/portal-invitations/${match![1]}/accept`, {
      method: 'POST',
    });
    expect(accepted.status).toBe(200);
    expect((await call(t, 'GET', `/v1/portal-users/${created.body.id}`)).body.status).toBe(
      'active',
    );
  });
});
