import { describe, expect, it } from 'vitest';
import {
  answer,
  askedOf,
  confirmationIdOf,
  modernToolCall,
  type WireResponse,
} from '../support/mcp-confirmation-fixtures.js';
import {
  auditEvents,
  createPortalUser,
  ledgerStatus,
  portalUserStatus,
  sqlRows,
  sqlReplicaPairPerFile,
} from '../support/confirmation-records.js';
import { textJsonOf, type Json } from '../support/mcp-peers.js';
import { parseMetrics, sampleKey } from '../support/raw-mcp.js';

/**
 * An accepted confirmation is consumed atomically, exactly once, across all replicas.
 * Two server instances share one database (and nothing else but the server secret); one
 * accepted `requestState` is presented 50 times at once, split across both.
 */

const ATTEMPTS = 50;

/** The first instance `a` (where each question is asked), the second `b`, and SQL on their database. */
const pair = sqlReplicaPairPerFile();

/** `ok`, an isError code, or what else came back (a JSON-RPC error, another resultType). */
type Outcome = string;

function outcomeOf(res: WireResponse): Outcome {
  if (res.status !== 200 || res.body?.error !== undefined)
    return `http_${res.status}:${JSON.stringify(res.body?.error ?? res.body)}`;
  const result: Json = res.body.result;
  if (result.resultType !== 'complete') return `resultType:${result.resultType}`;
  if (result.isError !== true) return 'ok';
  return textJsonOf(result).error.code;
}

function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
}

async function count(text: string, params: unknown[]): Promise<number> {
  const [row] = await sqlRows<{ n: string }>(
    pair.sql,
    `SELECT count(*)::text AS n FROM (${text}) q`,
    params,
  );
  return Number(row.n);
}

/** The replayed confirmations an instance counted in its own metrics. */
async function replaysCounted(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return parseMetrics(text).get(sampleKey('mcp_confirmations_total', { outcome: 'replayed' })) ?? 0;
}

/** The audit trail of one confirmation through the REST API (as the owner, an admin), oldest first. */
async function chainOf(id: string): Promise<Json[]> {
  return (
    await auditEvents(pair.a, { resource_type: 'confirmation', resource_id: id })
  ).toReversed();
}

/** `[action, actor, channel, client]` of each event about confirmation `id`, oldest first. */
async function trailOf(id: string): Promise<Array<[string, string, string, string]>> {
  return (await chainOf(id)).map((e) => [e.action, e.actor_name, e.channel, e.client_name]);
}

const OWNER = 'Olivia Owner';

/** Asks once (on the first instance), then fires every answer at once, alternating instances. */
async function race(answers: Array<'accept' | 'decline'>) {
  const user = await createPortalUser(pair.a, 'Race Target');
  const owner = pair.a.tokens.owner;
  const asked = askedOf(
    await modernToolCall(pair.a.url, owner, 'delete_portal_user', { id: user.id }),
  );
  const confirmationId = confirmationIdOf(asked.requestState);
  const instances = [pair.a.url, pair.b.url];

  const responses = await Promise.all(
    answers.map((a, i) =>
      modernToolCall(
        instances[i % 2],
        owner,
        'delete_portal_user',
        { id: user.id },
        {
          requestState: asked.requestState,
          inputResponses: answer(asked.key, a),
        },
      ),
    ),
  );
  return { user, confirmationId, outcomes: responses.map(outcomeOf) };
}

describe('two instances, one database, one accepted requestState presented 50 times at once', () => {
  it('exactly one success, 49 confirmation_replayed, one deletion, one audit event', async () => {
    const { user, confirmationId, outcomes } = await race(Array(ATTEMPTS).fill('accept'));

    if (process.env.RACE_REPORT) {
      const won = outcomes.findIndex((o) => o === 'ok');
      console.info(
        `race: ${JSON.stringify(tally(outcomes))}, won on instance ${won < 0 ? '-' : (won % 2) + 1}`,
      );
    }
    expect(tally(outcomes)).toEqual({ ok: 1, confirmation_replayed: ATTEMPTS - 1 });
    // Both instances answered their half, whichever won: each counted its own replays (at least
    // its half less the one that may have won there), and together all of them.
    const replayed = await Promise.all([pair.a.url, pair.b.url].map(replaysCounted));
    for (const n of replayed) expect(n).toBeGreaterThanOrEqual(ATTEMPTS / 2 - 1);
    expect(replayed[0] + replayed[1]).toBe(ATTEMPTS - 1);

    expect(await portalUserStatus(pair.a, user.id)).toBe(404);
    expect(
      await count(
        `SELECT 1 FROM audit_events WHERE action = 'portal_user.deleted' AND resource_id = $1`,
        [user.id],
      ),
    ).toBe(1);
    expect(
      await count(
        `SELECT 1 FROM audit_events WHERE action = 'portal_user.deleted' AND resource_id = $1
            AND channel = 'mcp' AND confirmation_id = $2`,
        [user.id, confirmationId],
      ),
    ).toBe(1);
    expect(await ledgerStatus(pair.sql, confirmationId)).toBe('consumed');
    // Asked, answered yes in the client's form, used: once each, whatever the 49 others did.
    const chain = await chainOf(confirmationId);
    expect(chain.map((e) => [e.action, e.actor_name, e.channel, e.client_name])).toEqual([
      ['confirmation.requested', OWNER, 'mcp', 'raw-e2e'],
      ['confirmation.confirmed', OWNER, 'mcp', 'raw-e2e'],
      ['confirmation.executed', OWNER, 'mcp', 'raw-e2e'],
    ]);
    expect(
      chain.every(
        (e) =>
          e.resource_label === `delete_portal_user portal_user ${user.id}` &&
          e.confirmation_id === confirmationId &&
          e.token_id !== null,
      ),
    ).toBe(true);
    expect(chain.map((e) => e.changes.status)).toEqual([
      { before: null, after: 'pending' },
      { before: 'pending', after: 'confirmed' },
      { before: 'confirmed', after: 'consumed' },
    ]);
    // The answer and its use are the winning call's, beside the deletion; the question another's.
    const [deleted] = await auditEvents(pair.a, {
      action: 'portal_user.deleted',
      resource_id: user.id,
    });
    expect(chain[1].request_id).toBe(deleted.request_id);
    expect(chain[2].request_id).toBe(deleted.request_id);
    expect(chain[2].trace_id).toBe(deleted.trace_id);
    expect(chain[0].request_id).not.toBe(deleted.request_id);
    // Nothing of the call's arguments beyond what the label names.
    expect(JSON.stringify(chain)).not.toContain('Race Target');
    // Every attempt is in the call history. The write's row committed with the deletion; a
    // refused attempt's row is written before its answer too, unless 50 calls at once used up its
    // request's database deadline on a loaded machine: then it is kept and written a moment later
    // (never dropped), so the count is awaited rather than read once.
    const historyOf = async () =>
      Object.fromEntries(
        (
          await sqlRows<{ status: string; n: string }>(
            pair.sql,
            `SELECT status, count(*)::text AS n FROM mcp_tool_calls WHERE confirmation_id = $1 GROUP BY status`,
            [confirmationId],
          )
        ).map((h) => [h.status, Number(h.n)]),
      );
    await expect
      .poll(historyOf, { timeout: 30_000, interval: 250 })
      .toEqual({ input_required: 1, ok: 1, confirmation_replayed: ATTEMPTS - 1 });
  });

  it('accepts and declines racing: exactly one decision wins, every other attempt is replayed', async () => {
    const answers = Array.from({ length: ATTEMPTS }, (_, i) =>
      i % 4 < 2 ? ('accept' as const) : ('decline' as const),
    );
    const { user, confirmationId, outcomes } = await race(answers);
    const counts = tally(outcomes);
    expect(counts.confirmation_replayed).toBe(ATTEMPTS - 1);
    const winner = Object.keys(counts).find((k) => k !== 'confirmation_replayed');
    expect(['ok', 'USER_DECLINED']).toContain(winner);
    expect(await ledgerStatus(pair.sql, confirmationId)).toBe(
      winner === 'ok' ? 'consumed' : 'declined',
    );
    expect(await portalUserStatus(pair.a, user.id)).toBe(winner === 'ok' ? 404 : 200);
    expect(
      await count(
        `SELECT 1 FROM audit_events WHERE action = 'portal_user.deleted' AND resource_id = $1`,
        [user.id],
      ),
    ).toBe(winner === 'ok' ? 1 : 0);
    expect((await chainOf(confirmationId)).map((e) => e.action)).toEqual(
      winner === 'ok'
        ? ['confirmation.requested', 'confirmation.confirmed', 'confirmation.executed']
        : ['confirmation.requested', 'confirmation.declined'],
    );
  });

  it('declined in the form: USER_DECLINED, audited requested → declined, nothing deleted', async () => {
    const { user, confirmationId, outcomes } = await race(['decline']);
    expect(outcomes).toEqual(['USER_DECLINED']);
    expect(await portalUserStatus(pair.a, user.id)).toBe(200);
    expect(await trailOf(confirmationId)).toEqual([
      ['confirmation.requested', OWNER, 'mcp', 'raw-e2e'],
      ['confirmation.declined', OWNER, 'mcp', 'raw-e2e'],
    ]);
    expect((await chainOf(confirmationId))[1].changes).toMatchObject({
      status: { before: 'pending', after: 'declined' },
    });
  });

  it('lapsed before the answer: two retries at once on both instances are asked anew, expired audited once', async () => {
    const user = await createPortalUser(pair.a, 'Lapsed Target');
    const owner = pair.a.tokens.owner;
    const asked = askedOf(
      await modernToolCall(pair.a.url, owner, 'delete_portal_user', { id: user.id }),
    );
    const confirmationId = confirmationIdOf(asked.requestState);
    await pair.sql.query(
      `UPDATE mcp_confirmations SET created_at = now() - interval '20 minutes', expires_at = now() - interval '1 second'
        WHERE id = $1`,
      [confirmationId],
    );
    const retries = await Promise.all(
      [pair.a.url, pair.b.url].map((url) =>
        modernToolCall(
          url,
          owner,
          'delete_portal_user',
          { id: user.id },
          { requestState: asked.requestState, inputResponses: answer(asked.key, 'accept') },
        ),
      ),
    );
    const fresh = retries.map((r) => confirmationIdOf(askedOf(r).requestState));
    expect(fresh).not.toContain(confirmationId);
    expect(await portalUserStatus(pair.a, user.id)).toBe(200);
    expect(await ledgerStatus(pair.sql, confirmationId)).toBe('expired');
    expect(await trailOf(confirmationId)).toEqual([
      ['confirmation.requested', OWNER, 'mcp', 'raw-e2e'],
      ['confirmation.expired', OWNER, 'mcp', 'raw-e2e'],
    ]);
    expect((await chainOf(confirmationId))[1].changes).toMatchObject({
      status: { before: 'pending', after: 'expired' },
      reason: { after: 'not answered before it expired' },
    });
    // Each retry's new question is audited as asked.
    for (const id of fresh)
      expect((await chainOf(id)).map((e) => e.action)).toEqual(['confirmation.requested']);
  });
});
