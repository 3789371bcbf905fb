import { describe, expect, it } from 'vitest';
import { hiddenField, type BrowserAgent } from '../support/browser-agent.js';
import { signedInAgent } from '../support/console-sign-in.js';
import { textJsonOf, type Json } from '../support/mcp-peers.js';
import {
  askedOf,
  confirmationIdOf,
  modernToolCall,
  postMcp,
  type WireResponse,
} from '../support/mcp-confirmation-fixtures.js';
import { CONCURRENT_RETRIES, gatedToolPairPerFile } from '../support/confirmation-records.js';
import { legacyInitialize } from '../support/raw-mcp.js';
import type { TestServer } from '../support/test-server.js';

/**
 * Confirmation policy `verified` (ADR 0012) on two replicas of one database: the question is asked
 * with a URL-mode elicitation (2026-07-28 `input_required`; 2025-11-25 `URLElicitationRequiredError`)
 * naming this server's page; only the token's person, signed in, can confirm there (anyone else
 * signed in is refused and sees no button); the page's decision is used once by the retry
 * (concurrent retries on both replicas: one run), and a decision that lapsed, was already used or
 * was made under another policy version decides nothing.
 */
const URL_MODE = { elicitation: { url: {} } };

let olivia: BrowserAgent;
let max: BrowserAgent;
const pair = gatedToolPairPerFile('verified', {
  setUp: async ({ a }) => {
    olivia = await signedInAgent(a, 'olivia.owner@acme.test');
    max = await signedInAgent(a, 'max.member@acme.test');
  },
});

/** The owner's delete on 2026-07-28 from a client that declares URL-mode elicitation. */
function modernDelete(
  t: TestServer,
  id: string,
  retry: { requestState?: string; inputResponses?: unknown } = {},
): Promise<WireResponse> {
  return modernToolCall(t.url, t.tokens.owner, pair.tool, { id }, retry, {
    capabilities: URL_MODE,
  });
}

/** A 2025-11-25 session whose initialize declared `elicitation.url` (or only `capabilities`). */
async function legacySession(t: TestServer, capabilities: Json = URL_MODE): Promise<string> {
  const res = await legacyInitialize(t.url, t.tokens.owner, 'legacy-url', {
    protocolVersion: '2025-11-25',
    capabilities,
  });
  const session = res.headers.get('mcp-session-id');
  if (res.status !== 200 || session === null) throw new Error(`initialize: ${res.status}`);
  return session;
}

let nextId = 100;
function legacyDelete(
  t: TestServer,
  session: string,
  id: string,
  version = '2025-11-25',
): Promise<WireResponse> {
  return postMcp(
    t.url,
    t.tokens.owner,
    {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: { name: pair.tool, arguments: { id } },
    },
    { 'mcp-protocol-version': version, 'mcp-session-id': session },
  );
}

/** `ok`, an isError code, `rpc:<code>`, or what else came back. */
function outcomeOf(res: WireResponse): string {
  if (res.body?.error !== undefined) return `rpc:${res.body.error.code}`;
  const result: Json = res.body?.result;
  if (result?.resultType === 'input_required') return 'input_required';
  if (result?.isError !== true) return 'ok';
  return textJsonOf(result).error.code;
}

/** The page's URL and the confirmation id of a URL-mode question. */
function pageOf(res: WireResponse): { url: string; id: string; requestState: string } {
  const asked = askedOf(res);
  expect(asked.request).toEqual({
    method: 'elicitation/create',
    params: { mode: 'url', message: expect.any(String), url: expect.any(String) },
  });
  const id = confirmationIdOf(asked.requestState);
  return { url: asked.request.params.url, id, requestState: asked.requestState };
}

/** GET the page as `agent`: status and HTML. */
async function open(agent: BrowserAgent, id: string): Promise<{ status: number; html: string }> {
  const res = await agent.fetch(`/confirm/${id}`);
  return { status: res.status, html: await res.text() };
}

/** Presses Confirm or Decline on the page (with the page's own CSRF token). */
async function press(
  agent: BrowserAgent,
  id: string,
  decision: 'confirm' | 'decline',
): Promise<{ status: number; html: string }> {
  const page = await open(agent, id);
  expect(page.status).toBe(200);
  const res = await agent.fetch(`/confirm/${id}`, {
    form: { csrf: hiddenField(page.html, 'csrf'), decision },
  });
  return { status: res.status, html: await res.text() };
}

/** The audit trail of one confirmation through the REST API (as the owner, an admin), oldest first. */
async function chainOf(t: TestServer, id: string): Promise<Json[]> {
  return (
    await pair.auditEvents({ resource_type: 'confirmation', resource_id: id }, t)
  ).toReversed();
}

/** `[action, actor, channel, client]` of each event, oldest first. */
async function trailOf(
  t: TestServer,
  id: string,
): Promise<Array<[string, string, string, string]>> {
  return (await chainOf(t, id)).map((e) => [e.action, e.actor_name, e.channel, e.client_name]);
}

/**
 * `targetId` was deleted once, audited with confirmation `id`, whose ledger row is consumed; the
 * deletion's audit event.
 */
async function expectDeletedOnceBy(targetId: string, id: string): Promise<Json> {
  const deleted = await pair.deletions(targetId);
  expect(deleted).toHaveLength(1);
  expect(deleted[0].confirmation_id).toBe(id);
  expect(await ledgerRow(id)).toMatchObject({ status: 'consumed' });
  return deleted[0];
}

async function ledgerRow(id: string): Promise<Json> {
  const [row] = await pair.sqlRows(
    `SELECT status, mode, policy_version, verified_at IS NOT NULL AS verified FROM mcp_confirmations WHERE id = $1`,
    [id],
  );
  return row;
}

describe('verified policy, 2026-07-28', () => {
  it(`asks with the page’s URL; only Olivia, signed in, can confirm; ${CONCURRENT_RETRIES} concurrent retries on two replicas run it once`, async () => {
    const target = await pair.newTarget('Verified Target');
    const first = await modernDelete(pair.a, target.id);
    const { url, id, requestState } = pageOf(first);
    expect(url).toBe(`${pair.a.server.config.baseUrl}/confirm/${id}`);
    expect(askedOf(first).request.params.message).toContain('Verified Target');
    expect(askedOf(first).request.params).not.toHaveProperty('elicitationId');
    expect(await ledgerRow(id)).toMatchObject({
      status: 'pending',
      mode: 'verified',
      verified: false,
    });

    // Before the page: the retry asks the same question again (same page, same state); the
    // client's own "accept" decides nothing, whatever it carries.
    for (const inputResponses of [
      { confirm: { action: 'accept' } },
      { confirm: { action: 'accept', content: { confirm: true } } },
    ]) {
      const early = await modernDelete(pair.b, target.id, { requestState, inputResponses });
      expect(pageOf(early)).toEqual({ url, id, requestState });
    }
    expect(await pair.targetStatus(target.id)).toBe(200);

    // Not signed in: sent to sign in first, and told nothing about the question.
    const anonymous = await fetch(url, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toContain(
      `/signin?return_to=${encodeURIComponent(`/confirm/${id}`)}`,
    );
    // Max, signed in: a refusal, no button, not the question; audited as refused.
    const other = await open(max, id);
    expect(other.status).toBe(403);
    expect(other.html).toContain('asked of another person');
    expect(other.html).not.toContain('value="confirm"');
    expect(other.html).not.toContain('Verified Target');
    const forged = await max.fetch(`/confirm/${id}`, {
      form: { csrf: hiddenField(other.html, 'csrf'), decision: 'confirm' },
    });
    expect(forged.status).toBe(403);
    expect(await ledgerRow(id)).toMatchObject({ status: 'pending', verified: false });

    // Olivia: the question and two buttons; a post without the CSRF token changes nothing.
    const mine = await open(olivia, id);
    expect(mine.status).toBe(200);
    expect(mine.html).toContain('Verified Target');
    expect(mine.html).toContain('value="confirm"');
    expect(
      (await olivia.fetch(`/confirm/${id}`, { form: { csrf: 'nope', decision: 'confirm' } }))
        .status,
    ).toBe(403);
    expect(await ledgerRow(id)).toMatchObject({ status: 'pending', verified: false });

    const confirmed = await press(olivia, id, 'confirm');
    expect(confirmed.status).toBe(200);
    expect(confirmed.html).toContain('You confirmed it');
    expect(await ledgerRow(id)).toMatchObject({ status: 'pending', verified: true });
    // Answered once: the page does not take a second answer.
    expect((await open(olivia, id)).status).toBe(410);

    const outcomes = await Promise.all(
      Array.from({ length: CONCURRENT_RETRIES }, (_, i) =>
        modernDelete(i % 2 === 0 ? pair.a : pair.b, target.id, {
          requestState,
          inputResponses: { confirm: { action: 'accept' } },
        }),
      ),
    ).then((all) => all.map(outcomeOf));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(outcomes.filter((o) => o !== 'ok' && o !== 'confirmation_replayed')).toEqual([]);
    expect(await pair.targetStatus(target.id, pair.b)).toBe(404);
    const deletion = await expectDeletedOnceBy(target.id, id);

    // The page after use: refused.
    const replayed = await open(olivia, id);
    expect(replayed.status).toBe(410);
    expect(replayed.html).toContain('Already used');

    // Asked by the client for Olivia; refused to Max twice; confirmed by Olivia on the page; used
    // once by the retry that ran (in its request, beside the deletion), whichever replica it was.
    const chain = await chainOf(pair.a, id);
    expect(chain.map((e) => [e.action, e.actor_name, e.channel, e.client_name])).toEqual([
      ['confirmation.requested', 'Olivia Owner', 'mcp', 'raw-e2e'],
      ['confirmation.refused', 'Max Member', 'web', 'raw-e2e'],
      ['confirmation.refused', 'Max Member', 'web', 'raw-e2e'],
      ['confirmation.confirmed', 'Olivia Owner', 'web', 'raw-e2e'],
      ['confirmation.executed', 'Olivia Owner', 'mcp', 'raw-e2e'],
    ]);
    expect(chain.every((e) => e.confirmation_id === id)).toBe(true);
    expect(
      chain.every((e) => e.resource_label === `${pair.tool} ${pair.targetType} ${target.id}`),
    ).toBe(true);
    expect(chain[0].changes).toMatchObject({
      status: { before: null, after: 'pending' },
      mode: { before: null, after: 'verified' },
    });
    expect(chain[4].changes).toEqual({ status: { before: 'confirmed', after: 'consumed' } });
    expect(chain[4].request_id).toBe(deletion.request_id);
    expect(chain[4].trace_id).toBe(deletion.trace_id);

    // The confirmation's detail tells the whole chain: asked, decided on the page, what ran.
    const detail: Json = await (
      await pair.b.request(`/v1/mcp/confirmations/${id}`, { token: 'owner' })
    ).json();
    expect(detail).toMatchObject({
      id,
      mode: 'verified',
      status: 'consumed',
      verified_at: expect.any(String),
      decided_at: expect.any(String),
      tool_call_id: expect.any(String),
    });
    expect(detail.audit_events.map((e: Json) => e.action)).toEqual([
      'confirmation.requested',
      'confirmation.refused',
      'confirmation.refused',
      'confirmation.confirmed',
      'confirmation.executed',
      'portal_user.deleted',
    ]);
  });

  it('declined on the page: the retry is told USER_DECLINED and nothing is deleted', async () => {
    const target = await pair.newTarget('Declined Target');
    const { id, requestState } = pageOf(await modernDelete(pair.a, target.id));
    const declined = await press(olivia, id, 'decline');
    expect(declined.status).toBe(200);
    expect(declined.html).toContain('You declined it');
    const retry = await modernDelete(pair.b, target.id, {
      requestState,
      inputResponses: { confirm: { action: 'accept' } },
    });
    expect(outcomeOf(retry)).toBe('USER_DECLINED');
    expect(await pair.targetStatus(target.id)).toBe(200);
    expect(await ledgerRow(id)).toMatchObject({ status: 'declined' });
    expect(await trailOf(pair.a, id)).toEqual([
      ['confirmation.requested', 'Olivia Owner', 'mcp', 'raw-e2e'],
      ['confirmation.declined', 'Olivia Owner', 'web', 'raw-e2e'],
    ]);
  });

  it('declined in the client (its URL-mode answer): the retry is USER_DECLINED, audited once', async () => {
    const target = await pair.newTarget('Client Declined Target');
    const { id, requestState } = pageOf(await modernDelete(pair.a, target.id));
    const retries = await Promise.all(
      [pair.a, pair.b].map((t) =>
        modernDelete(t, target.id, {
          requestState,
          inputResponses: { confirm: { action: 'decline' } },
        }),
      ),
    );
    expect(retries.map(outcomeOf)).toEqual(['USER_DECLINED', 'USER_DECLINED']);
    expect(await ledgerRow(id)).toMatchObject({ status: 'declined' });
    expect(await pair.targetStatus(target.id)).toBe(200);
    const chain = await chainOf(pair.b, id);
    expect(chain.map((e) => [e.action, e.actor_name, e.channel])).toEqual([
      ['confirmation.requested', 'Olivia Owner', 'mcp'],
      ['confirmation.declined', 'Olivia Owner', 'mcp'],
    ]);
    expect(chain[1].changes).toMatchObject({ status: { before: 'pending', after: 'declined' } });
  });

  it('a lapsed question: the page refuses it and the retry asks a new one', async () => {
    const target = await pair.newTarget('Lapsed Target');
    const { id, requestState } = pageOf(await modernDelete(pair.a, target.id));
    await pair.sql.query(
      `UPDATE mcp_confirmations SET created_at = now() - interval '20 minutes', expires_at = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    const page = await open(olivia, id);
    expect(page.status).toBe(410);
    expect(page.html).toContain('expired');
    // Two retries at once, one on each replica: each is asked anew; the lapsed one closes once.
    const retries = await Promise.all(
      [pair.a, pair.b].map((t) => modernDelete(t, target.id, { requestState })),
    );
    const fresh = retries.map((r) => pageOf(r).id);
    expect(fresh).not.toContain(id);
    expect(new Set(fresh).size).toBe(2);
    expect(await pair.targetStatus(target.id)).toBe(200);
    expect(await ledgerRow(id)).toMatchObject({ status: 'expired' });
    const chain = await chainOf(pair.a, id);
    expect(chain.map((e) => [e.action, e.actor_name, e.channel])).toEqual([
      ['confirmation.requested', 'Olivia Owner', 'mcp'],
      ['confirmation.expired', 'Olivia Owner', 'mcp'],
    ]);
    expect(chain[1].changes).toMatchObject({
      status: { before: 'pending', after: 'expired' },
      reason: { after: 'not answered before it expired' },
    });
  });

  it('confirmed on the page but not used in time: expired once, nothing runs', async () => {
    const target = await pair.newTarget('Unused Target');
    const { id, requestState } = pageOf(await modernDelete(pair.a, target.id));
    expect((await press(olivia, id, 'confirm')).status).toBe(200);
    await pair.sql.query(
      `UPDATE mcp_confirmations SET created_at = now() - interval '20 minutes', expires_at = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    const retries = await Promise.all(
      [pair.a, pair.b].map((t) => modernDelete(t, target.id, { requestState })),
    );
    expect(retries.map((r) => pageOf(r).id)).not.toContain(id);
    expect(await pair.targetStatus(target.id)).toBe(200);
    expect(await trailOf(pair.b, id)).toEqual([
      ['confirmation.requested', 'Olivia Owner', 'mcp', 'raw-e2e'],
      ['confirmation.confirmed', 'Olivia Owner', 'web', 'raw-e2e'],
      ['confirmation.expired', 'Olivia Owner', 'mcp', 'raw-e2e'],
    ]);
    expect((await chainOf(pair.b, id))[2].changes).toMatchObject({
      status: { before: 'confirmed', after: 'expired' },
      reason: { after: 'confirmed on the page but not used before it expired' },
    });
  });

  it('a policy change: a decision made under the older version is refused, on the page and at the retry', async () => {
    const target = await pair.newTarget('Policy Target');
    // Confirmed under the version in force, then the policy changes (a new expiry, same mode).
    const confirmedFirst = pageOf(await modernDelete(pair.a, target.id));
    expect((await press(olivia, confirmedFirst.id, 'confirm')).status).toBe(200);
    // Asked under the version in force, not answered before the change.
    const openFirst = pageOf(await modernDelete(pair.a, target.id));
    const page = await open(olivia, openFirst.id);
    expect(page.status).toBe(200);
    const version = await pair.setPolicyExpiry(900);

    const late = await olivia.fetch(`/confirm/${openFirst.id}`, {
      form: { csrf: hiddenField(page.html, 'csrf'), decision: 'confirm' },
    });
    expect(late.status).toBe(409);
    expect(await ledgerRow(openFirst.id)).toMatchObject({ status: 'pending', verified: false });

    const retry = await modernDelete(pair.b, target.id, {
      requestState: confirmedFirst.requestState,
    });
    const asked = pageOf(retry);
    expect(asked.id).not.toBe(confirmedFirst.id);
    expect(await ledgerRow(asked.id)).toMatchObject({ policy_version: version });
    expect(await ledgerRow(confirmedFirst.id)).toMatchObject({ status: 'pending', verified: true });
    expect(await pair.targetStatus(target.id)).toBe(200);
  });
});

describe('verified policy, 2025-11-25', () => {
  it(`URLElicitationRequiredError names the page; after Olivia confirms, ${CONCURRENT_RETRIES} concurrent retries run it once`, async () => {
    const target = await pair.newTarget('Legacy Target');
    const session = await legacySession(pair.a);
    const first = await legacyDelete(pair.a, session, target.id);
    expect(first.body.error).toMatchObject({
      code: -32042,
      data: {
        elicitations: [
          {
            mode: 'url',
            elicitationId: expect.any(String),
            url: expect.stringContaining('/confirm/'),
            message: expect.stringContaining('Legacy Target'),
          },
        ],
      },
    });
    const [elicitation] = first.body.error.data.elicitations;
    const id: string = elicitation.elicitationId;
    expect(elicitation.url).toBe(`${pair.a.server.config.baseUrl}/confirm/${id}`);
    // Retried before the page: the same question again, on either replica; no second row.
    const again = await legacyDelete(pair.b, session, target.id);
    expect(again.body.error.data.elicitations[0].elicitationId).toBe(id);
    expect(await pair.targetStatus(target.id)).toBe(200);

    expect((await open(max, id)).status).toBe(403);
    expect((await press(olivia, id, 'confirm')).status).toBe(200);

    const outcomes = await Promise.all(
      Array.from({ length: CONCURRENT_RETRIES }, (_, i) =>
        legacyDelete(i % 2 === 0 ? pair.a : pair.b, session, target.id),
      ),
    ).then((all) => all.map(outcomeOf));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    // The others raced the one that ran: told so, or (arriving after the delete) the user is gone.
    expect(
      outcomes.filter((o) => o !== 'ok' && o !== 'confirmation_replayed' && o !== 'NOT_FOUND'),
    ).toEqual([]);
    // The same call once more, right after: a duplicate of the one that ran, not a new question.
    expect(outcomeOf(await legacyDelete(pair.b, session, target.id))).toBe('confirmation_replayed');
    // No new question was asked for them.
    const [{ n }] = await pair.sqlRows(
      `SELECT count(*)::int AS n FROM mcp_confirmations WHERE target_id = $1`,
      [target.id],
    );
    expect(n).toBe(1);
    await expectDeletedOnceBy(target.id, id);
    expect((await open(olivia, id)).status).toBe(410);
    // Asked once (the retry before the page asked nothing new), refused to Max when he opened it,
    // confirmed by Olivia, used once among the concurrent retries and the call after them.
    expect(await trailOf(pair.a, id)).toEqual([
      ['confirmation.requested', 'Olivia Owner', 'mcp', 'legacy-url'],
      ['confirmation.refused', 'Max Member', 'web', 'legacy-url'],
      ['confirmation.confirmed', 'Olivia Owner', 'web', 'legacy-url'],
      ['confirmation.executed', 'Olivia Owner', 'mcp', 'legacy-url'],
    ]);
  });

  it('a lapsed question is closed once when the same call comes back, and asked anew', async () => {
    const target = await pair.newTarget('Legacy Lapsed');
    const session = await legacySession(pair.a);
    const first = await legacyDelete(pair.a, session, target.id);
    const id: string = first.body.error.data.elicitations[0].elicitationId;
    await pair.sql.query(
      `UPDATE mcp_confirmations SET created_at = now() - interval '20 minutes', expires_at = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    const again = await Promise.all(
      [pair.a, pair.b].map((t) => legacyDelete(t, session, target.id)),
    );
    for (const res of again) {
      expect(res.body.error.code).toBe(-32042);
      expect(res.body.error.data.elicitations[0].elicitationId).not.toBe(id);
    }
    expect(await ledgerRow(id)).toMatchObject({ status: 'expired' });
    expect(await trailOf(pair.b, id)).toEqual([
      ['confirmation.requested', 'Olivia Owner', 'mcp', 'legacy-url'],
      ['confirmation.expired', 'Olivia Owner', 'mcp', 'legacy-url'],
    ]);
    expect(await pair.targetStatus(target.id)).toBe(200);
  });

  it('a decline on the page is told once; the next call asks again', async () => {
    const target = await pair.newTarget('Legacy Declined');
    const session = await legacySession(pair.a);
    const first = await legacyDelete(pair.a, session, target.id);
    const id: string = first.body.error.data.elicitations[0].elicitationId;
    expect((await press(olivia, id, 'decline')).status).toBe(200);
    expect(outcomeOf(await legacyDelete(pair.b, session, target.id))).toBe('USER_DECLINED');
    const next = await legacyDelete(pair.a, session, target.id);
    expect(next.body.error.code).toBe(-32042);
    expect(next.body.error.data.elicitations[0].elicitationId).not.toBe(id);
    expect(await pair.targetStatus(target.id)).toBe(200);
  });

  it('a 2025 client that did not declare elicitation.url (or 2025-06-18) gets confirmation_required', async () => {
    const target = await pair.newTarget('Legacy Form Only');
    const formOnly = await legacySession(pair.a, { elicitation: {} });
    const refused = await legacyDelete(pair.a, formOnly, target.id);
    expect(outcomeOf(refused)).toBe('confirmation_required');
    expect(textJsonOf(refused.body.result).error.message).toContain('mode "verified"');
    const urlSession = await legacySession(pair.a);
    expect(outcomeOf(await legacyDelete(pair.a, urlSession, target.id, '2025-06-18'))).toBe(
      'confirmation_required',
    );
    expect(await pair.targetStatus(target.id)).toBe(200);
  });
});
