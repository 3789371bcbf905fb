import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../support/mcp-peers.js';
import {
  answer,
  answerDelete,
  deletePortalUser,
  askedOf,
  modernToolCall,
  confirmationIdOf,
  toolErrorCode,
} from '../support/mcp-confirmation-fixtures.js';
import { createPortalUser, portalUserStatus } from '../support/confirmation-records.js';
import { startReplicaPair, type TestServer } from '../support/test-server.js';

/**
 * Confirmation policies (PRODUCT §4.1) over REST and through the tool executor, on two replicas of
 * one database: the list and its default, who may change a policy, the audit event, optimistic
 * versions, a change reaching the other replica's next call within 1 s, and a decision made under
 * an older policy version refused.
 */
const BOUND_MS = 1_000;
const PATH = '/v1/mcp/confirmation-policies';

let a: TestServer;
let b: TestServer;
let pair: Awaited<ReturnType<typeof startReplicaPair>> | undefined;

beforeAll(async () => {
  pair = await startReplicaPair();
  ({ a, b } = pair);
}, 180_000);

afterAll(() => pair?.close());

async function policies(t: TestServer): Promise<Json[]> {
  const res = await t.request(PATH, { token: 'owner' });
  expect(res.status).toBe(200);
  const body: Json = await res.json();
  return body.data;
}

async function setPolicy(
  t: TestServer,
  tool: string,
  body: Record<string, unknown>,
  token = 'owner',
): Promise<{ status: number; body: Json }> {
  const res = await t.request(`${PATH}/${tool}`, { method: 'PATCH', token, json: body });
  return { status: res.status, body: await res.json() };
}

/** Polls `t` with a fresh delete until its answer satisfies `done`; how long that took after `since`. */
async function until(t: TestServer, done: (res: Json) => boolean, since: number): Promise<number> {
  const target = await createPortalUser(a);
  for (;;) {
    const res = await deletePortalUser(t, target.id);
    const elapsed = performance.now() - since;
    if (done(res.body)) return elapsed;
    if (elapsed > BOUND_MS * 3) throw new Error(`still ${JSON.stringify(res.body.result)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The policy version a question's `requestState` was signed under. */
function policyVersionOf(body: Json): number {
  const state = String(body.result.requestState);
  return JSON.parse(Buffer.from(state.slice(0, state.indexOf('.')), 'base64url').toString()).pv;
}

const asks = (body: Json): boolean => body.result?.resultType === 'input_required';
const awaitsApproval = (body: Json): boolean => toolErrorCode(body.result) === 'approval_pending';

describe('confirmation policies', () => {
  it('lists every destructive tool (default form) and every write tool (default none), with the server TTL, version 0', async () => {
    const listed = await policies(a);
    expect(listed).toContainEqual(
      expect.objectContaining({
        tool: 'delete_account',
        kind: 'destructive',
        mode: 'form',
        expiry_seconds: 600,
        version: 0,
        updated_at: null,
        updated_by: null,
      }),
    );
    expect(listed.map((p) => `${p.tool} ${p.kind} ${p.mode} ${p.version}`)).toEqual([
      'activate_portal_user write none 0',
      'create_account write none 0',
      'create_portal_user write none 0',
      'deactivate_portal_user write none 0',
      'delete_account destructive form 0',
      'delete_portal_user destructive form 0',
      'resend_portal_user_invitation write none 0',
      'update_account write none 0',
      'update_portal_user write none 0',
    ]);
  });

  it('needs the admin permission and the org:admin scope', async () => {
    const member = await a.request(PATH, { token: 'member' });
    expect(member.status).toBe(403);
    const refusal: Json = await member.json();
    expect(refusal.error.code).toBe('insufficient_permission');
    const change = await setPolicy(a, 'delete_account', { mode: 'approval' }, 'readonly_pat');
    expect(change.status).toBe(403);
    expect(change.body.error.code).toBe('insufficient_scope');
    expect((await policies(a)).find((p) => p.tool === 'delete_account').version).toBe(0);
  });

  it('refuses an unknown tool, a tool that does not ask, a bad mode or expiry', async () => {
    expect((await setPolicy(a, 'no_such_tool', { mode: 'form' })).status).toBe(404);
    expect((await setPolicy(a, 'list_accounts', { mode: 'approval' })).status).toBe(404);
    const mode = await setPolicy(a, 'delete_account', { mode: 'never' });
    expect(mode.status).toBe(422);
    expect(mode.body.error.details).toEqual([{ field: 'mode', message: expect.any(String) }]);
    // A destructive tool always runs after a decision: `none` is a write tool's mode only.
    const none = await setPolicy(a, 'delete_account', { mode: 'none' });
    expect(none.status).toBe(422);
    expect(none.body.error.details).toEqual([
      { field: 'mode', message: expect.stringContaining('destructive') },
    ]);
    expect((await policies(a)).find((p) => p.tool === 'delete_account').version).toBe(0);
    const expiry = await setPolicy(a, 'delete_account', { mode: 'form', expiry_seconds: 5 });
    expect(expiry.status).toBe(422);
  });

  it('a change is versioned and audited; an edit of an older version is a CONFLICT', async () => {
    const first = await setPolicy(a, 'delete_account', {
      mode: 'approval',
      expiry_seconds: 3600,
      version: 0,
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ mode: 'approval', expiry_seconds: 3600, version: 1 });
    expect(first.body.updated_by).toEqual(expect.any(String));

    const stale = await setPolicy(a, 'delete_account', { mode: 'form', version: 0 });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('CONFLICT');

    // Unchanged values: no new version, no audit event.
    const same = await setPolicy(a, 'delete_account', { mode: 'approval', version: 1 });
    expect(same.body.version).toBe(1);

    const events = await a.request('/v1/audit-events?action=confirmation_policy.updated', {
      token: 'owner',
    });
    const listed: Json = await events.json();
    const data: Json[] = listed.data;
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({
      resource_type: 'confirmation_policy',
      resource_label: 'delete_account',
      channel: 'api',
      changes: {
        mode: { before: 'form', after: 'approval' },
        expiry_seconds: { before: 600, after: 3600 },
        version: { before: 0, after: 1 },
      },
    });
    // Back to the default mode (a new version, not a reset).
    const back = await setPolicy(a, 'delete_account', { mode: 'form', expiry_seconds: 600 });
    expect(back.body.version).toBe(2);
  });

  it('a change made on A reaches the next call on B within 1 s, both ways', async () => {
    expect(await until(b, asks, performance.now())).toBeLessThan(BOUND_MS);
    const toApproval = await setPolicy(a, 'delete_portal_user', { mode: 'approval' });
    expect(toApproval.status).toBe(200);
    const at = performance.now();
    expect(await until(b, awaitsApproval, at)).toBeLessThanOrEqual(BOUND_MS);

    const toForm = await setPolicy(b, 'delete_portal_user', { mode: 'form' });
    expect(toForm.status).toBe(200);
    const back = performance.now();
    expect(await until(a, asks, back)).toBeLessThanOrEqual(BOUND_MS);
  });

  it('a question asked under an older version is not used: asked again, nothing ran', async () => {
    const target = await createPortalUser(a);
    const asked = askedOf(await deletePortalUser(b, target.id));
    // The policy changes (its expiry only) before the person's answer arrives.
    const changed = await setPolicy(a, 'delete_portal_user', {
      mode: 'form',
      expiry_seconds: 120,
    });
    expect(changed.status).toBe(200);
    // Once B asks under the new version (within the bound), the old answer arrives there.
    await until(
      b,
      (body) => asks(body) && policyVersionOf(body) === changed.body.version,
      performance.now(),
    );
    const retried = (await answerDelete(b, target.id, asked)).body;
    expect(asks(retried)).toBe(true);
    expect(await portalUserStatus(a, target.id)).toBe(200);
    // Asked again under the new version, with its expiry; that answer runs the delete once.
    const again = askedOf({ status: 200, headers: new Headers(), body: retried });
    expect(confirmationIdOf(again.requestState)).not.toBe(confirmationIdOf(asked.requestState));
    const [row]: Json[] = await a.server.app
      .get(DataSource)
      .query(
        `SELECT extract(epoch FROM expires_at - created_at)::int AS ttl FROM mcp_confirmations WHERE id = $1`,
        [confirmationIdOf(again.requestState)],
      );
    expect(row.ttl).toBe(120);
    const done = await answerDelete(b, target.id, again);
    expect(done.body.result.isError).not.toBe(true);
    expect(await portalUserStatus(a, target.id)).toBe(404);
  });

  it('a write tool runs at once by default; under form it asks and runs once on yes; under approval it waits; back to none it runs', async () => {
    const target = await createPortalUser(a, 'Policy Person');
    const rename = (t: TestServer, name: string, retry = {}) =>
      modernToolCall(t.url, t.tokens.owner, 'update_portal_user', { id: target.id, name }, retry);
    const nameOf = async (): Promise<string> => {
      const user: Json = await (
        await a.request(`/v1/portal-users/${target.id}`, { token: 'owner' })
      ).json();
      return user.name;
    };

    // Default none: runs at once.
    const direct = await rename(b, 'Renamed Once');
    expect(direct.body.result.isError).not.toBe(true);
    expect(await nameOf()).toBe('Renamed Once');

    // Form: the person is asked, with the change named; nothing ran until the yes.
    expect((await setPolicy(a, 'update_portal_user', { mode: 'form' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, BOUND_MS));
    const asked = askedOf(await rename(b, 'Renamed Twice'));
    expect(asked.request.params.message).toBe(
      'Change portal user Renamed Once <' + target.email + '>: name → Renamed Twice?',
    );
    expect(await nameOf()).toBe('Renamed Once');
    const done = await rename(b, 'Renamed Twice', {
      requestState: asked.requestState,
      inputResponses: answer(asked.key, 'accept'),
    });
    expect(done.body.result.isError).not.toBe(true);
    expect(await nameOf()).toBe('Renamed Twice');
    // The same answer again runs nothing more.
    const replay = await rename(b, 'Renamed Twice', {
      requestState: asked.requestState,
      inputResponses: answer(asked.key, 'accept'),
    });
    expect(toolErrorCode(replay.body.result)).toBe('confirmation_replayed');

    // Approval: another admin must approve; nothing runs meanwhile.
    expect((await setPolicy(a, 'update_portal_user', { mode: 'approval' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, BOUND_MS));
    const waiting = await rename(b, 'Renamed Thrice');
    expect(toolErrorCode(waiting.body.result)).toBe('approval_pending');
    expect(await nameOf()).toBe('Renamed Twice');

    // Back to none (a new version, audited): runs at once again.
    const back = await setPolicy(a, 'update_portal_user', { mode: 'none' });
    expect(back.body).toMatchObject({ mode: 'none', kind: 'write', version: 3 });
    await new Promise((r) => setTimeout(r, BOUND_MS));
    const again = await rename(b, 'Renamed Thrice');
    expect(again.body.result.isError).not.toBe(true);
    expect(await nameOf()).toBe('Renamed Thrice');
  });

  it('a create tool under form asks about the arguments (no record yet) and creates once on yes', async () => {
    expect((await setPolicy(a, 'create_account', { mode: 'form' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, BOUND_MS));
    const args = { name: `Asked Account ${Date.now().toString(36)}` };
    const asked = askedOf(await modernToolCall(b.url, b.tokens.owner, 'create_account', args));
    expect(asked.request.params.message).toBe(`Create account ${args.name}?`);
    const count = async (): Promise<number> => {
      const page: Json = await (
        await a.request(`/v1/accounts?q=${encodeURIComponent(args.name)}`, { token: 'owner' })
      ).json();
      return page.data.length;
    };
    expect(await count()).toBe(0);
    const done = await modernToolCall(b.url, b.tokens.owner, 'create_account', args, {
      requestState: asked.requestState,
      inputResponses: answer(asked.key, 'accept'),
    });
    expect(done.body.result.isError).not.toBe(true);
    expect(done.body.result.structuredContent.name).toBe(args.name);
    expect(await count()).toBe(1);
    const [row]: Json[] = await a.server.app
      .get(DataSource)
      .query(`SELECT target_type, target_id, status FROM mcp_confirmations WHERE id = $1`, [
        confirmationIdOf(asked.requestState),
      ]);
    expect(row).toEqual({ target_type: 'account', target_id: 'new', status: 'consumed' });
  });
});
