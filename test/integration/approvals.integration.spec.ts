import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { coverHistory } from '../support/history-partitions.js';
import { textJsonOf, type Json } from '../support/mcp-peers.js';
import {
  legacyRequest,
  modernToolCall,
  type WireResponse,
} from '../support/mcp-confirmation-fixtures.js';
import { CONCURRENT_RETRIES, gatedToolPairPerFile } from '../support/confirmation-records.js';
import type { TestServer } from '../support/test-server.js';

/**
 * Four-eyes approval (confirmation policy `approval`, ADR 0011) on two replicas of one database:
 * a destructive call records one request and answers `approval_pending` in both eras; another
 * admin approves (never the requester) or denies it with a reason; the same call retried runs once
 * (concurrent retries across both replicas: one execution), is told the denial or the expiry
 * once, and a decision made under an older policy version counts for nothing. The demo member Max
 * is made an admin here, to be the second admin.
 */
const pair = gatedToolPairPerFile('approval');

/** The owner's delete of `id` on 2026-07-28 without elicitation (approval needs none). */
function modernDelete(t: TestServer, id: string): Promise<WireResponse> {
  return modernToolCall(t.url, t.tokens.owner, pair.tool, { id }, {}, { capabilities: {} });
}

function legacyDelete(t: TestServer, id: string): Promise<WireResponse> {
  return legacyRequest(t.url, t.tokens.owner, 'tools/call', {
    name: pair.tool,
    arguments: { id },
  });
}

/** `ok`, an isError code, or what else came back. */
function outcomeOf(res: WireResponse): string {
  if (res.status !== 200 || res.body?.error !== undefined)
    return `http_${res.status}:${JSON.stringify(res.body?.error ?? res.body)}`;
  const result: Json = res.body.result;
  if (result.isError !== true) return 'ok';
  return textJsonOf(result).error.code;
}

function errorOf(res: WireResponse): Json {
  return textJsonOf(res.body.result).error;
}

async function decide(
  t: TestServer,
  token: string,
  id: string,
  verb: 'approve' | 'deny',
  body: Record<string, unknown> = {},
): Promise<{ status: number; body: Json }> {
  const res = await t.request(`/v1/mcp/approvals/${id}/${verb}`, {
    method: 'POST',
    token,
    json: body,
  });
  return { status: res.status, body: await res.json() };
}

async function approvalRows(targetId: string): Promise<Json[]> {
  return pair.sqlRows(
    `SELECT id, status, policy_version FROM mcp_approvals WHERE target_id = $1 ORDER BY created_at`,
    [targetId],
  );
}

describe('approval policy', () => {
  it(`one request for the call in both eras; the admins are told; the requester cannot approve it; another admin does; ${CONCURRENT_RETRIES} concurrent retries on two replicas run it once`, async () => {
    const target = await pair.newTarget('Approval Target');
    const first = await modernDelete(pair.a, target.id);
    expect(outcomeOf(first)).toBe('approval_pending');
    const id: string = errorOf(first).details.approval_id;
    expect(errorOf(first).message).toContain(id);
    expect(errorOf(first).message).toContain('admin permission other than Olivia Owner');
    // The same call on the other replica, in the 2025 era: the same request, no second one.
    const again = await legacyDelete(pair.b, target.id);
    expect(outcomeOf(again)).toBe('approval_pending');
    expect(errorOf(again).details.approval_id).toBe(id);
    expect(await approvalRows(target.id)).toEqual([
      { id, status: 'pending', policy_version: pair.policyVersion },
    ]);
    expect(await pair.targetStatus(target.id)).toBe(200);

    const listed: Json = await (
      await pair.b.request('/v1/mcp/approvals?status=pending', { token: 'member' })
    ).json();
    expect(listed.data).toEqual([
      expect.objectContaining({
        id,
        tool: pair.tool,
        status: 'pending',
        arguments: { id: target.id },
        target_type: pair.targetType,
        target_id: target.id,
        requester_name: 'Olivia Owner',
        requester_email: 'olivia.owner@acme.test',
        client_name: 'raw-e2e',
        policy_version: pair.policyVersion,
        message: expect.stringContaining('Approval Target'),
      }),
    ]);
    const count: Json = await (
      await pair.a.request('/v1/mcp/approvals/pending-count', { token: 'member' })
    ).json();
    expect(count).toEqual({ pending: 1 });

    // Max, the other admin, got a mail with the console's link (no secret in it); Olivia none.
    const outbox: Json = await (await pair.a.request('/v1/mail/outbox', { token: 'owner' })).json();
    const mails: Json[] = outbox.data.filter((m: Json) => m.subject.includes(pair.tool));
    expect(mails.map((m) => m.to)).toEqual(['max.member@acme.test']);
    expect(mails[0].text).toContain(`${pair.a.server.config.baseUrl}/admin/approvals`);
    expect(mails[0].text).toContain(id);
    expect(mails[0].text).not.toContain(pair.a.tokens.owner);

    const own = await decide(pair.a, 'owner', id, 'approve');
    expect(own.status).toBe(403);
    expect(own.body.error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('another member with the admin permission'),
    });
    const noReason = await decide(pair.b, 'member', id, 'deny');
    expect(noReason.status).toBe(422);
    const approved = await decide(pair.b, 'member', id, 'approve', {
      reason: 'checked with sales',
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      status: 'approved',
      decided_by_name: 'Max Member',
      decided_via: 'api',
      reason: 'checked with sales',
    });
    expect((await decide(pair.a, 'member', id, 'deny', { reason: 'too late' })).status).toBe(409);

    const outcomes = await Promise.all(
      Array.from({ length: CONCURRENT_RETRIES }, (_, i) =>
        i % 2 === 0
          ? modernDelete(i % 4 === 0 ? pair.a : pair.b, target.id)
          : legacyDelete(i % 4 === 1 ? pair.a : pair.b, target.id),
      ),
    ).then((all) => all.map(outcomeOf));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    // The others: the approval already used, or (arriving after the delete) the user is gone.
    expect(
      outcomes.filter((o) => o !== 'ok' && o !== 'confirmation_replayed' && o !== 'NOT_FOUND'),
    ).toEqual([]);
    expect(await pair.targetStatus(target.id, pair.b)).toBe(404);
    const deleted = await pair.deletions(target.id);
    expect(deleted).toHaveLength(1);
    expect(await approvalRows(target.id)).toEqual([
      { id, status: 'executed', policy_version: pair.policyVersion },
    ]);
    const chain = await pair.auditEvents({ resource_type: 'approval', resource_id: id });
    expect(chain.map((e) => [e.action, e.actor_name, e.channel]).toReversed()).toEqual([
      ['approval.requested', 'Olivia Owner', 'mcp'],
      ['approval.approved', 'Max Member', 'api'],
      ['approval.executed', 'Olivia Owner', 'mcp'],
    ]);
    // The approval's execution and the delete are the same request.
    const executed = chain.find((e) => e.action === 'approval.executed');
    expect(deleted[0].request_id).toBe(executed.request_id);
  });

  it('a denial is told once with its reason, nothing runs; calling again asks anew', async () => {
    const target = await pair.newTarget('Denied Target');
    const id: string = errorOf(await modernDelete(pair.a, target.id)).details.approval_id;
    const denied = await decide(pair.b, 'member', id, 'deny', { reason: 'not before the audit' });
    expect(denied.status).toBe(200);
    expect(denied.body.status).toBe('denied');
    const told = await legacyDelete(pair.b, target.id);
    expect(outcomeOf(told)).toBe('approval_denied');
    expect(errorOf(told).message).toContain('not before the audit');
    expect(errorOf(told).message).toContain('Max Member');
    const anew = await modernDelete(pair.a, target.id);
    expect(outcomeOf(anew)).toBe('approval_pending');
    expect(errorOf(anew).details.approval_id).not.toBe(id);
    expect(await pair.targetStatus(target.id)).toBe(200);
    const events = await pair.auditEvents({ resource_type: 'approval', resource_id: id });
    expect(events.find((e) => e.action === 'approval.denied')).toMatchObject({
      actor_name: 'Max Member',
      changes: { reason: { before: null, after: 'not before the audit' } },
    });
  });

  it('a request past its expiry cannot be decided, and the retry is told approval_expired once', async () => {
    const target = await pair.newTarget('Lapsed Target');
    const id: string = errorOf(await modernDelete(pair.a, target.id)).details.approval_id;
    await pair.sql.query(
      `UPDATE mcp_approvals SET created_at = now() - interval '20 minutes', expires_at = now() - interval '10 minutes' WHERE id = $1`,
      [id],
    );
    const listed: Json = await (
      await pair.a.request('/v1/mcp/approvals?status=expired', { token: 'member' })
    ).json();
    expect(listed.data.map((r: Json) => r.id)).toContain(id);
    expect((await decide(pair.b, 'member', id, 'approve')).status).toBe(409);
    const told = await modernDelete(pair.b, target.id);
    expect(outcomeOf(told)).toBe('approval_expired');
    expect(errorOf(told).details.approval_id).toBe(id);
    expect(outcomeOf(await modernDelete(pair.b, target.id))).toBe('approval_pending');
    const events = await pair.auditEvents({ action: 'approval.expired', resource_id: id });
    expect(events).toHaveLength(1);

    // Approved, then not used before the approval lapsed: expired too, and nothing ran.
    const second: string = errorOf(await modernDelete(pair.a, target.id)).details.approval_id;
    expect((await decide(pair.a, 'member', second, 'approve')).status).toBe(200);
    await pair.sql.query(
      `UPDATE mcp_approvals SET created_at = now() - interval '20 minutes', expires_at = now() - interval '1 second' WHERE id = $1`,
      [second],
    );
    expect(outcomeOf(await legacyDelete(pair.a, target.id))).toBe('approval_expired');
    expect(await pair.targetStatus(target.id)).toBe(200);
  });

  it('a decision made under an older policy version is refused: nothing runs, a new request is made', async () => {
    const target = await pair.newTarget('Versioned Target');
    const old: string = errorOf(await modernDelete(pair.a, target.id)).details.approval_id;
    expect((await decide(pair.a, 'member', old, 'approve')).status).toBe(200);
    await pair.setPolicyExpiry(900);
    const retried = await modernDelete(pair.a, target.id);
    expect(outcomeOf(retried)).toBe('approval_pending');
    const fresh: string = errorOf(retried).details.approval_id;
    expect(fresh).not.toBe(old);
    expect(errorOf(retried).message).toContain('older confirmation policy');
    expect(await pair.targetStatus(target.id)).toBe(200);
    expect(await approvalRows(target.id)).toEqual([
      { id: old, status: 'superseded', policy_version: pair.policyVersion - 1 },
      { id: fresh, status: 'pending', policy_version: pair.policyVersion },
    ]);
    // The policy changes again before anyone decides: the decision is refused.
    await pair.setPolicyExpiry(600);
    const late = await decide(pair.a, 'member', fresh, 'approve');
    expect(late.status).toBe(409);
    expect(late.body.error.message).toContain('changed since this request was made');
    expect(await pair.targetStatus(target.id)).toBe(200);
  });
});

describe('approval in the call history', () => {
  it('the refused call and the call that ran carry the approval id; another organisation sees neither', async () => {
    const target = await pair.newTarget('History Target');
    const refused = await modernDelete(pair.a, target.id);
    expect(outcomeOf(refused)).toBe('approval_pending');
    const id: string = errorOf(refused).details.approval_id;
    expect((await decide(pair.b, 'member', id, 'approve', { reason: 'ticket 42' })).status).toBe(
      200,
    );
    expect(outcomeOf(await legacyDelete(pair.b, target.id))).toBe('ok');

    const listed = await pair.a.request(`/v1/mcp/tool-calls?approval_id=${id}`, { token: 'owner' });
    expect(listed.status).toBe(200);
    const listedBody: Json = await listed.json();
    const calls: Json[] = listedBody.data;
    expect(calls.map((c) => [c.tool, c.status, c.era, c.approval_id])).toEqual([
      [pair.tool, 'ok', '2025', id],
      [pair.tool, 'approval_pending', '2026-07-28', id],
    ]);
    const unfiltered: Json = await (
      await pair.b.request(`/v1/mcp/tool-calls?tool=${pair.tool}&limit=100`, { token: 'owner' })
    ).json();
    expect(unfiltered.data.filter((c: Json) => c.approval_id === id)).toHaveLength(2);
    const detail = await pair.b.request(`/v1/mcp/tool-calls/${calls[0].id}`, { token: 'owner' });
    expect(detail.status).toBe(200);
    const ran: Json = await detail.json();
    expect(ran).toMatchObject({ id: calls[0].id, approval_id: id });
    // The chain: asked by Olivia from her client, approved by Max with his reason through the API
    // (his personal token, named), and the call that ran.
    expect(ran.approval).toEqual({
      id,
      status: 'executed',
      expires_at: expect.any(String),
      requested: {
        at: expect.any(String),
        user_id: calls[1].user_id,
        name: 'Olivia Owner',
        client_name: 'raw-e2e',
      },
      decided: {
        decision: 'approved',
        at: expect.any(String),
        user_id: expect.any(String),
        name: 'Max Member',
        reason: 'ticket 42',
        via: 'api',
        on: expect.stringMatching(
          /^the REST API \(POST \/v1\/mcp\/approvals\/\{id\}\/approve\|deny\) with the personal token «.+»$/,
        ),
      },
      executed: { at: expect.any(String), request_id: ran.request_id, tool_call_id: calls[0].id },
    });
    expect(Date.parse(ran.approval.decided.at)).toBeGreaterThanOrEqual(
      Date.parse(ran.approval.requested.at),
    );
    // The refused call shows the same chain, leading to the call that ran.
    const asked: Json = await (
      await pair.a.request(`/v1/mcp/tool-calls/${calls[1].id}`, { token: 'owner' })
    ).json();
    expect(asked.approval).toEqual(ran.approval);

    const stranger = await pair.a.request(`/v1/mcp/tool-calls?approval_id=${id}`, {
      token: 'globex_owner',
    });
    expect(stranger.status).toBe(200);
    const strangerBody: Json = await stranger.json();
    expect(strangerBody.data).toEqual([]);
    const strangerDetail = await pair.a.request(`/v1/mcp/tool-calls/${calls[0].id}`, {
      token: 'globex_owner',
    });
    expect(strangerDetail.status).toBe(404);
    // Without `since`, the list reads only the request's own time range: a row stamped two days
    // before the request was asked (none can be; written here by hand) is outside it, and is
    // found only by a caller who asks for that range. A request this organisation does not have
    // lists nothing.
    await coverHistory(
      pair.a.db.url,
      new Date(Date.now() - 3 * 86_400_000).toISOString(),
      new Date().toISOString(),
    );
    const [{ id: early }] = await pair.sqlRows(
      `INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, era, protocol_version, status,
                                   is_error, duration_ms, request_id, approval_id, created_at)
       SELECT gen_random_uuid(), organization_id, token_id, user_id, tool, era, protocol_version, status, is_error,
              duration_ms, 'early-' || request_id, approval_id, now() - interval '2 days'
         FROM mcp_tool_calls WHERE id = $1
       RETURNING id`,
      [calls[0].id],
    );
    const bounded: Json = await (
      await pair.a.request(`/v1/mcp/tool-calls?approval_id=${id}`, { token: 'owner' })
    ).json();
    expect(bounded.data.map((c: Json) => c.id)).toEqual(calls.map((c) => c.id));
    const since = new Date(Date.now() - 3 * 86_400_000).toISOString();
    const wide: Json = await (
      await pair.a.request(`/v1/mcp/tool-calls?approval_id=${id}&since=${since}`, {
        token: 'owner',
      })
    ).json();
    expect(wide.data.map((c: Json) => c.id)).toEqual([...calls.map((c) => c.id), early]);
    const unknown: Json = await (
      await pair.a.request(`/v1/mcp/tool-calls?approval_id=${randomUUID()}`, { token: 'owner' })
    ).json();
    expect(unknown).toEqual({ data: [], next_cursor: null });

    const bad = await pair.a.request('/v1/mcp/tool-calls?approval_id=not-a-uuid', {
      token: 'owner',
    });
    expect(bad.status).toBe(422);
  });
});
