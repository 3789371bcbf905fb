import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { rpcErrorOf, textJsonOf, type Json } from '../support/mcp-peers.js';
import {
  answer,
  askedOf,
  confirmationIdOf,
  connectConfirmingPeer,
  legacyRequest,
  modernToolCall,
  toolErrorCode,
  UNSAFE_PROMPT_CHARACTERS,
  type ConfirmingPeerKind,
  type ElicitAnswer,
  type WireResponse,
  answerDelete,
  deletePortalUser,
  expectToolError,
} from '../support/mcp-confirmation-fixtures.js';
import {
  accountIdByName,
  accountStatus,
  auditEvents,
  createPortalUser,
  ledgerCount,
  ledgerStatus,
  openSql,
  portalUserIdByEmail,
  portalUserStatus,
  sqlRows,
  type SqlClient,
} from '../support/confirmation-records.js';

/**
 * Destructive tools run only after the person confirms, once per confirmation (elicitation in the
 * 2025 era, `input_required` with a signed `requestState` in 2026-07-28). Every outcome is driven against the real server, over HTTP,
 * by real SDK clients and by raw 2026-07-28 requests; each one that must change nothing is
 * checked three ways: the record still exists (REST), no deletion was audited, and the ledger row
 * (SQL) is in the state the contract names.
 */

let t: TestServer;
let sql: SqlClient;
let mcpUrl: string;
let owner: string;

beforeAll(async () => {
  t = await startTestServer();
  sql = await openSql(t.db.url);
  mcpUrl = `${t.url}/mcp`;
  owner = t.tokens.owner;
});
afterAll(async () => {
  await sql?.end();
  await t?.close();
});

const byText = (a: string, b: string): number => a.localeCompare(b);

const ACCEPT: ElicitAnswer = { action: 'accept', content: { confirm: true } };

/** The person confirmed nothing that happened: the record is there and no deletion was audited. */
async function expectPortalUserUntouched(id: string): Promise<void> {
  expect(await portalUserStatus(t, id)).toBe(200);
  expect(await auditEvents(t, { action: 'portal_user.deleted', resource_id: id })).toEqual([]);
}

async function askDelete(id: string): Promise<ReturnType<typeof askedOf>> {
  const res = await deletePortalUser(t, id);
  expect(res.status).toBe(200);
  return askedOf(res);
}

function expectRpcError(res: WireResponse, code: number, what?: string): void {
  expect(res.body, what).toMatchObject({ jsonrpc: '2.0', error: { code } });
  expect(res.body, what).not.toHaveProperty('result');
}

async function toolCalls(tool: string): Promise<Json[]> {
  const res = await t.request(`/v1/mcp/tool-calls?tool=${tool}&limit=100`, { token: 'owner' });
  expect(res.status).toBe(200);
  const page: Json = await res.json();
  return page.data;
}

/** Deletes a fresh portal user through a v2 client that accepts; returns what it saw. */
async function deleteAccepted() {
  const user = await createPortalUser(t, 'Paula Accept');
  const peer = await connectConfirmingPeer('v2-2026-07-28', mcpUrl, owner, () => ACCEPT);
  try {
    const result: Json = await peer.callTool('delete_portal_user', { id: user.id });
    const calls = peer.exchanges.filter((e) => e.requestBody?.method === 'tools/call');
    return { user, result, calls, asked: peer.asked };
  } finally {
    await peer.close();
  }
}

async function questionFor(id: string): Promise<{ message: string; confirmationId: string }> {
  const peer = await connectConfirmingPeer('v2-2026-07-28', mcpUrl, owner, () => ({
    action: 'decline',
  }));
  try {
    const result: Json = await peer.callTool('delete_portal_user', { id });
    expect(toolErrorCode(result)).toBe('USER_DECLINED');
    expect(peer.asked).toHaveLength(1);
    const ask = peer.exchanges.find((e) => e.requestBody?.method === 'tools/call');
    return {
      message: peer.asked[0].message,
      confirmationId: confirmationIdOf(ask?.responseBody.result.requestState),
    };
  } finally {
    await peer.close();
  }
}

async function deleteAccountAccepted(id: string) {
  const peer = await connectConfirmingPeer('v2-2026-07-28', mcpUrl, owner, () => ACCEPT);
  try {
    const result: Json = await peer.callTool('delete_account', { id });
    const ask = peer.exchanges.find((e) => e.requestBody?.method === 'tools/call');
    return {
      result,
      message: peer.asked[0]?.message,
      confirmationId: confirmationIdOf(ask?.responseBody.result.requestState),
    };
  } finally {
    await peer.close();
  }
}

describe('v2 client pinned to 2026-07-28, answering the confirmation form', () => {
  it('accept → deleted exactly once; complete result; audit event and call history carry the confirmation', async () => {
    const { user, result, calls, asked } = await deleteAccepted();

    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({ id: user.id, deleted: true });
    expect(textJsonOf(result)).toEqual({ id: user.id, deleted: true });

    // On the wire: ask (input_required) → one retry that echoes the state (complete).
    expect(asked).toHaveLength(1);
    expect(calls).toHaveLength(2);
    const [ask, retry] = calls;
    expect(ask.responseBody.result.resultType).toBe('input_required');
    const requestState: string = ask.responseBody.result.requestState;
    expect(retry.requestBody.params.requestState).toBe(requestState);
    expect(retry.responseBody.result.resultType).toBe('complete');
    const confirmationId = confirmationIdOf(requestState);

    expect(await portalUserStatus(t, user.id)).toBe(404);
    const events = await auditEvents(t, { action: 'portal_user.deleted', resource_id: user.id });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      channel: 'mcp',
      client_name: 'confirm-e2e',
      confirmation_id: confirmationId,
      resource_type: 'portal_user',
      resource_id: user.id,
    });
    expect(await ledgerStatus(sql, confirmationId)).toBe('consumed');

    const history = (await toolCalls('delete_portal_user')).filter(
      (c) => c.confirmation_id === confirmationId,
    );
    expect(history.map((c) => c.status).sort(byText)).toEqual(['input_required', 'ok']);
    expect(history.find((c) => c.status === 'ok')).toMatchObject({
      is_error: false,
      era: '2026-07-28',
      client_name: 'confirm-e2e',
      request_id: events[0].request_id,
    });
  });

  it('GET /v1/mcp/confirmations/{id} shows it consumed, with the tool call it authorized and the audit event', async () => {
    const { user, calls } = await deleteAccepted();
    const confirmationId = confirmationIdOf(calls[0].responseBody.result.requestState);
    const okCall = (await toolCalls('delete_portal_user')).find(
      (c) => c.confirmation_id === confirmationId && c.status === 'ok',
    );
    const [event] = await auditEvents(t, { action: 'portal_user.deleted', resource_id: user.id });

    const res = await t.request(`/v1/mcp/confirmations/${confirmationId}`, { token: 'owner' });
    expect(res.status).toBe(200);
    const detail: Json = await res.json();
    expect(detail).toMatchObject({
      id: confirmationId,
      tool: 'delete_portal_user',
      status: 'consumed',
      target_type: 'portal_user',
      target_id: user.id,
      client_name: 'confirm-e2e',
      decided_at: expect.any(String),
    });
    // Asked, confirmed in the form, used, then what it authorized.
    expect(detail.audit_events.map((e: Json) => e.action)).toEqual([
      'confirmation.requested',
      'confirmation.confirmed',
      'confirmation.executed',
      'portal_user.deleted',
    ]);
    expect(detail.audit_events[3].id).toBe(event.id);
    // The call the confirmation authorized (the confirmation history links to its tool call).
    expect(detail.tool_call_id).toBe(okCall.id);
    expect(detail.tool_call).toMatchObject({ id: okCall.id, status: 'ok' });
  });

  it.each(['decline', 'cancel'] as const)(
    '%s → isError USER_DECLINED; nothing deleted; the row is declined',
    async (action) => {
      const user = await createPortalUser(t, `Dora ${action}`);
      const peer = await connectConfirmingPeer('v2-2026-07-28', mcpUrl, owner, () => ({ action }));
      try {
        const result: Json = await peer.callTool('delete_portal_user', { id: user.id });
        expect(result.isError).toBe(true);
        expect(toolErrorCode(result)).toBe('USER_DECLINED');
        expect(peer.asked).toHaveLength(1);

        const ask = peer.exchanges.find((e) => e.requestBody?.method === 'tools/call');
        const confirmationId = confirmationIdOf(ask?.responseBody.result.requestState);
        await expectPortalUserUntouched(user.id);
        expect(await ledgerStatus(sql, confirmationId)).toBe('declined');
        const history = (await toolCalls('delete_portal_user')).filter(
          (c) => c.confirmation_id === confirmationId,
        );
        expect(history.map((c) => c.status).sort(byText)).toEqual([
          'input_required',
          'USER_DECLINED',
        ]);
      } finally {
        await peer.close();
      }
    },
  );
});

describe('the question names the record, sanitised', () => {
  it('names the person and the e-mail: "Delete portal user Ana Souza <ana@example.com>? This cannot be undone."', async () => {
    const ana = await portalUserIdByEmail(t, 'ana@example.com');
    const { message, confirmationId } = await questionFor(ana);
    expect(message).toBe('Delete portal user Ana Souza <ana@example.com>? This cannot be undone.');
    const [row] = await sqlRows(sql, 'SELECT message FROM mcp_confirmations WHERE id = $1', [
      confirmationId,
    ]);
    expect(row.message).toBe(message);
    await expectPortalUserUntouched(ana);
  });

  it('a hostile name (newline, U+202E, U+200B, 500 characters; written behind the API’s back) is one clean, bounded line', async () => {
    // The REST API refuses control characters and names over 200 characters; a record that got
    // in another way (import, older version) must still be shown safely.
    const [org] = await sqlRows(sql, `SELECT id FROM organizations WHERE slug = 'acme'`);
    const hostile =
      'Mallory\nEvil\u202Egnp.exe\u200B\u2066Admin\u2069\u0007\u2028\uFEFF' + 'x'.repeat(500);
    expect(hostile.length).toBeGreaterThan(500);
    const [row] = await sqlRows(
      sql,
      `INSERT INTO portal_users (organization_id, email, name, status)
       VALUES ($1, 'mallory@example.com', $2, 'invited') RETURNING id`,
      [org.id, hostile],
    );

    const { message, confirmationId } = await questionFor(row.id);
    expect(message).not.toMatch(UNSAFE_PROMPT_CHARACTERS);
    expect(message).not.toContain('\n');
    expect(message.length).toBeLessThanOrEqual(300);
    expect(message).toMatch(
      /^Delete portal user Mallory Evilgnp\.exeAdmin ?x+…? <mallory@example\.com>\? This cannot be undone\.$/,
    );
    expect(message).not.toContain('x'.repeat(200));
    const [stored] = await sqlRows(sql, 'SELECT message FROM mcp_confirmations WHERE id = $1', [
      confirmationId,
    ]);
    expect(stored.message).toBe(message);
    await expectPortalUserUntouched(row.id);
  });

  it('bidi and zero-width characters the API accepts are removed from the question', async () => {
    const user = await createPortalUser(
      t,
      `Eve\u202Etxt.exe\u200B\u200D\u2067Trusted\u2069 ${'y'.repeat(150)}`,
    );
    const { message } = await questionFor(user.id);
    expect(message).not.toMatch(UNSAFE_PROMPT_CHARACTERS);
    expect(message.startsWith('Delete portal user Evetxt.exeTrusted y')).toBe(true);
    expect(message.endsWith(`<${user.email}>? This cannot be undone.`)).toBe(true);
    expect(message.length).toBeLessThanOrEqual(300);
    await expectPortalUserUntouched(user.id);
  });
});

describe('raw HTTP, 2026-07-28 with form elicitation declared', () => {
  it('the first call asks: input_required with one form elicitation (boolean confirm, required) and a requestState; nothing runs', async () => {
    const user = await createPortalUser(t, 'Raw Ask');
    const res = await deletePortalUser(t, user.id);
    expect(res.status).toBe(200);
    const result: Json = res.body.result;
    expect(result.resultType).toBe('input_required');
    expect(result).not.toHaveProperty('isError');
    expect(result).not.toHaveProperty('content');
    expect(result).not.toHaveProperty('ttlMs');
    expect(Object.keys(result.inputRequests)).toHaveLength(1);
    const { request, requestState } = askedOf(res);
    expect(request).toEqual({
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: `Delete portal user Raw Ask <${user.email}>? This cannot be undone.`,
        requestedSchema: {
          type: 'object',
          properties: { confirm: expect.objectContaining({ type: 'boolean' }) },
          required: ['confirm'],
        },
      },
    });
    expect(requestState.length).toBeGreaterThan(0);
    expect(requestState.length).toBeLessThanOrEqual(2048);
    expect(await ledgerStatus(sql, confirmationIdOf(requestState))).toBe('pending');
    await expectPortalUserUntouched(user.id);
  });

  it('accept → complete; the same requestState again → isError confirmation_replayed, whatever the answer', async () => {
    const user = await createPortalUser(t, 'Raw Accept');
    const { key, requestState } = await askDelete(user.id);
    const confirmationId = confirmationIdOf(requestState);

    const done = await answerDelete(t, user.id, { key, requestState });
    expect(done.status).toBe(200);
    expect(done.body.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { id: user.id, deleted: true },
    });
    expect(done.body.result.isError ?? false).toBe(false);
    expect(await portalUserStatus(t, user.id)).toBe(404);

    for (const retry of [
      { requestState, inputResponses: answer(key, 'accept') },
      { requestState, inputResponses: answer(key, 'decline') },
      { requestState },
    ]) {
      expectToolError(await deletePortalUser(t, user.id, retry), 'confirmation_replayed');
    }
    expect(await ledgerStatus(sql, confirmationId)).toBe('consumed');
    expect(
      await auditEvents(t, { action: 'portal_user.deleted', resource_id: user.id }),
    ).toHaveLength(1);
  });

  it('a declined requestState presented again → confirmation_replayed (accept cannot resurrect it)', async () => {
    const user = await createPortalUser(t, 'Raw Decline');
    const { key, requestState } = await askDelete(user.id);
    expectToolError(
      await answerDelete(t, user.id, { key, requestState }, 'decline'),
      'USER_DECLINED',
    );
    expectToolError(await answerDelete(t, user.id, { key, requestState }), 'confirmation_replayed');
    expect(await ledgerStatus(sql, confirmationIdOf(requestState))).toBe('declined');
    await expectPortalUserUntouched(user.id);
  });

  it('a requestState with one payload character flipped → JSON-RPC -32602; nothing runs; the row stays pending', async () => {
    const user = await createPortalUser(t, 'Raw Tamper');
    const { key, requestState } = await askDelete(user.id);
    const i = 12;
    const flipped = requestState[i] === 'A' ? 'B' : 'A';
    const tampered = `${requestState.slice(0, i)}${flipped}${requestState.slice(i + 1)}`;
    expect(tampered).not.toBe(requestState);
    expect(tampered.indexOf('.')).toBe(requestState.indexOf('.'));

    for (const retry of [
      { requestState: tampered, inputResponses: answer(key, 'accept') },
      { requestState: tampered }, // no answer: still refused as tampered, not asked again
      { requestState: `${requestState}x`, inputResponses: answer(key, 'accept') },
      { requestState: 'not-a-state', inputResponses: answer(key, 'accept') },
    ]) {
      expectRpcError(await deletePortalUser(t, user.id, retry), -32602);
    }
    expect(await ledgerStatus(sql, confirmationIdOf(requestState))).toBe('pending');
    await expectPortalUserUntouched(user.id);
  });

  it('a genuine requestState presented for other arguments, another tool, or with another token → -32602; nothing runs', async () => {
    const a = await createPortalUser(t, 'Raw Foreign A');
    const b = await createPortalUser(t, 'Raw Foreign B');
    const askedA = await askDelete(a.id);
    const askedB = await askDelete(b.id);
    const retryA = {
      requestState: askedA.requestState,
      inputResponses: answer(askedA.key, 'accept'),
    };

    // Another token: a fresh personal token of the owner, with all the scopes the call needs.
    const created = await t.request('/v1/tokens', {
      method: 'POST',
      token: 'owner',
      json: {
        name: 'second token',
        scopes: ['portal_users:write', 'accounts:write', 'audit:read'],
      },
    });
    expect(created.status).toBe(201);
    const createdToken: Json = await created.json();
    const secondToken: string = createdToken.secret;
    for (const [presented, token, tool, id] of [
      ['state asked for A, presented to delete B', owner, 'delete_portal_user', b.id],
      ['same arguments, another destructive tool', owner, 'delete_account', a.id],
      ['same person and call, another token', secondToken, 'delete_portal_user', a.id],
    ] as const) {
      const res = await modernToolCall(t.url, token, tool, { id }, retryA);
      expectRpcError(res, -32602, presented);
    }

    for (const asked of [askedA, askedB])
      expect(await ledgerStatus(sql, confirmationIdOf(asked.requestState))).toBe('pending');
    await expectPortalUserUntouched(a.id);
    await expectPortalUserUntouched(b.id);
  });

  it.each([
    ['no inputResponses at all', (_key: string) => undefined],
    ['inputResponses without the key', (_key: string) => ({})],
    ['an answer under another key', (_key: string) => answer('something_else', 'accept')],
    ['accept with confirm: false', (key: string) => answer(key, 'accept', false)],
    ['accept without content', (key: string) => ({ [key]: { action: 'accept' } })],
    [
      'accept with confirm: "true" (a string)',
      (key: string) => ({
        [key]: { action: 'accept', content: { confirm: 'true' } },
      }),
    ],
  ])('the answer missing (%s) → a fresh input_required; nothing runs', async (_label, make) => {
    const user = await createPortalUser(t, 'Raw Missing');
    const first = await askDelete(user.id);
    const inputResponses = make(first.key);
    const res = await deletePortalUser(
      t,
      user.id,
      inputResponses === undefined
        ? { requestState: first.requestState }
        : { requestState: first.requestState, inputResponses },
    );
    const again = askedOf(res);
    expect(again.request.method).toBe('elicitation/create');
    expect(again.request.params.message).toBe(first.request.params.message);
    expect(await ledgerStatus(sql, confirmationIdOf(first.requestState))).toBe('pending');
    await expectPortalUserUntouched(user.id);
  });

  it('an expired confirmation (row lapsed in the database) → a fresh input_required; nothing runs', async () => {
    const user = await createPortalUser(t, 'Raw Expired');
    const { key, requestState } = await askDelete(user.id);
    const confirmationId = confirmationIdOf(requestState);
    await sql.query(
      `UPDATE mcp_confirmations
          SET created_at = now() - interval '20 minutes', expires_at = now() - interval '1 second'
        WHERE id = $1`,
      [confirmationId],
    );

    const res = await answerDelete(t, user.id, { key, requestState });
    const fresh = askedOf(res);
    expect(confirmationIdOf(fresh.requestState)).not.toBe(confirmationId);
    expect(await ledgerStatus(sql, confirmationId)).toBe('expired');
    expect(await ledgerStatus(sql, confirmationIdOf(fresh.requestState))).toBe('pending');
    await expectPortalUserUntouched(user.id);

    // The fresh question works as any other.
    const done = await answerDelete(t, user.id, fresh);
    expect(done.body.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { deleted: true },
    });
    expect(await portalUserStatus(t, user.id)).toBe(404);
  });
});

describe('clients that cannot confirm → isError confirmation_required; nothing ran; no ledger row', () => {
  it.each([
    ['v2 client pinned to 2025-06-18 (declares elicitation)', 'v2-2025-06-18'],
    ['v1 client, 2025-11-25 (declares elicitation)', 'v1'],
  ] as const)('%s', async (_label, kind: ConfirmingPeerKind) => {
    const user = await createPortalUser(t, 'Legacy Client');
    const rowsBefore = await ledgerCount(sql);
    const peer = await connectConfirmingPeer(kind, mcpUrl, owner, () => ACCEPT);
    try {
      const result: Json = await peer.callTool('delete_portal_user', { id: user.id });
      expect(result.isError).toBe(true);
      expect(toolErrorCode(result)).toBe('confirmation_required');
      expect(peer.asked).toEqual([]);
      const calls = peer.exchanges.filter((e) => e.requestBody?.method === 'tools/call');
      expect(calls).toHaveLength(1);
      expect(calls[0].responseBody.result).not.toHaveProperty('resultType');
    } finally {
      await peer.close();
    }
    expect(await ledgerCount(sql)).toBe(rowsBefore);
    expect(await ledgerCount(sql, `status = 'pending' AND target_id = $1`, [user.id])).toBe(0);
    await expectPortalUserUntouched(user.id);
  });

  it.each([
    ['no capabilities', {}],
    ['elicitation in URL mode only', { elicitation: { url: {} } }],
    ['sampling but no elicitation', { sampling: {} }],
  ])('raw 2026-07-28 with %s', async (_label, capabilities) => {
    const user = await createPortalUser(t, 'No Form');
    const rowsBefore = await ledgerCount(sql);
    const res = await deletePortalUser(t, user.id, {}, { capabilities });
    expectToolError(res, 'confirmation_required');
    expect(res.body.result).not.toHaveProperty('inputRequests');
    expect(res.body.result).not.toHaveProperty('requestState');
    expect(await ledgerCount(sql)).toBe(rowsBefore);
    await expectPortalUserUntouched(user.id);
  });

  it('raw 2025-11-25 (even with a forged requestState and answer) and delete_account too', async () => {
    const user = await createPortalUser(t, 'Legacy Raw');
    const umbrella = await accountIdByName(t, 'Umbrella Corp');
    const rowsBefore = await ledgerCount(sql);
    for (const [name, id] of [
      ['delete_portal_user', user.id],
      ['delete_account', umbrella],
    ]) {
      const res = await legacyRequest(t.url, owner, 'tools/call', {
        name,
        arguments: { id },
        requestState: 'x.y',
        inputResponses: answer('confirm', 'accept'),
      });
      expect(res.status).toBe(200);
      expect(res.body.result.isError).toBe(true);
      expect(textJsonOf(res.body.result)).toMatchObject({
        error: { code: 'confirmation_required' },
      });
    }
    expect(await ledgerCount(sql)).toBe(rowsBefore);
    await expectPortalUserUntouched(user.id);
    expect(await accountStatus(t, umbrella)).toBe(200);
  });
});

describe('delete_account', () => {
  it('"Initech" (has active portal users), accepted → isError FORBIDDEN from the endpoint; confirmation consumed; nothing deleted', async () => {
    const initech = await accountIdByName(t, 'Initech');
    const { result, message, confirmationId } = await deleteAccountAccepted(initech);
    expect(message).toBe(
      'Delete account Initech (tax id 12.345.678/0001-90)? This cannot be undone.',
    );
    expect(result.isError).toBe(true);
    expect(toolErrorCode(result)).toBe('FORBIDDEN');
    expect(await ledgerStatus(sql, confirmationId)).toBe('consumed');
    expect(await accountStatus(t, initech)).toBe(200);
    expect(await auditEvents(t, { action: 'account.deleted', resource_id: initech })).toEqual([]);
  });

  it('"Umbrella Corp", accepted → deleted, audited with the confirmation id', async () => {
    const umbrella = await accountIdByName(t, 'Umbrella Corp');
    const { result, message, confirmationId } = await deleteAccountAccepted(umbrella);
    expect(message).toBe('Delete account Umbrella Corp? This cannot be undone.');
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({ id: umbrella, deleted: true });
    expect(await accountStatus(t, umbrella)).toBe(404);
    const events = await auditEvents(t, { action: 'account.deleted', resource_id: umbrella });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      channel: 'mcp',
      client_name: 'confirm-e2e',
      confirmation_id: confirmationId,
    });
    expect(await ledgerStatus(sql, confirmationId)).toBe('consumed');
  });
});

describe('the target vanished between the question and the answer', () => {
  it('raw: deleted through REST after the ask → the accept is isError NOT_FOUND; nothing else happens', async () => {
    const user = await createPortalUser(t, 'Vanishing Raw');
    const { key, requestState } = await askDelete(user.id);
    const removed = await t.request(`/v1/portal-users/${user.id}`, {
      method: 'DELETE',
      token: 'owner',
    });
    expect(removed.status).toBe(200);

    const res = await answerDelete(t, user.id, { key, requestState });
    expectToolError(res, 'NOT_FOUND');
    const events = (await auditEvents(t, { resource_id: user.id })).filter(
      (e) => e.action !== 'portal_user.created',
    );
    expect(events.map((e) => [e.action, e.channel, e.confirmation_id])).toEqual([
      ['portal_user.deleted', 'api', null],
    ]);
    expect(await ledgerStatus(sql, confirmationIdOf(requestState))).toBe('consumed');
  });

  it('v2 client: the record is deleted while the person looks at the form → NOT_FOUND', async () => {
    const user = await createPortalUser(t, 'Vanishing Client');
    const peer = await connectConfirmingPeer('v2-2026-07-28', mcpUrl, owner, async () => {
      const removed = await t.request(`/v1/portal-users/${user.id}`, {
        method: 'DELETE',
        token: 'owner',
      });
      expect(removed.status).toBe(200);
      return ACCEPT;
    });
    try {
      const result: Json = await peer.callTool('delete_portal_user', { id: user.id });
      expect(toolErrorCode(result)).toBe('NOT_FOUND');
    } finally {
      await peer.close();
    }
    const events = (await auditEvents(t, { resource_id: user.id })).filter(
      (e) => e.action !== 'portal_user.created',
    );
    expect(events.map((e) => [e.action, e.channel])).toEqual([['portal_user.deleted', 'api']]);
  });
});

describe('arguments are checked before anything is asked', () => {
  it('an argument delete_portal_user does not declare is -32602; no question, no ledger row', async () => {
    const user = await createPortalUser(t, 'Bad Args');
    const rowsBefore = await ledgerCount(sql);
    const peer = await connectConfirmingPeer('v2-2026-07-28', mcpUrl, owner, () => ACCEPT);
    try {
      const error = await rpcErrorOf(
        peer.callTool('delete_portal_user', { id: user.id, force: true }),
      );
      expect(error.code).toBe(-32602);
      expect(peer.asked).toEqual([]);
    } finally {
      await peer.close();
    }
    expect(await ledgerCount(sql)).toBe(rowsBefore);
    await expectPortalUserUntouched(user.id);
  });
});

describe('nothing is asked about a record the caller cannot see', () => {
  it('another organisation’s portal user → isError NOT_FOUND before any question; no ledger row', async () => {
    const page: Json = await (
      await t.request('/v1/portal-users', { token: 'globex_owner' })
    ).json();
    const foreign: string = page.data[0].id;
    const rowsBefore = await ledgerCount(sql);
    const res = await deletePortalUser(t, foreign);
    expectToolError(res, 'NOT_FOUND');
    expect(res.body.result).not.toHaveProperty('inputRequests');
    expect(await ledgerCount(sql)).toBe(rowsBefore);
    const still = await t.request(`/v1/portal-users/${foreign}`, { token: 'globex_owner' });
    expect(still.status).toBe(200);
  });

  it('a malformed id → isError VALIDATION_ERROR naming the field; no ledger row', async () => {
    const rowsBefore = await ledgerCount(sql);
    const res = await deletePortalUser(t, 'not-a-uuid');
    const result = expectToolError(res, 'VALIDATION_ERROR');
    expect(textJsonOf(result).error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'id' })]),
    );
    expect(await ledgerCount(sql)).toBe(rowsBefore);
  });
});
