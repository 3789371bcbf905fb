import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/server-process.mjs';
import { FakeSmtp } from '../support/fake-smtp.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { requireApproval } from '../support/confirmation-records.js';
import { legacyRequest, toolErrorCode } from '../support/mcp-confirmation-fixtures.js';
import {
  call,
  countRows,
  expectNoChange,
  findPortalUser,
  type ApiResult,
} from './platform-api.fixtures.js';

/**
 * Creates an invited portal user on `t` while its mail fails for `reason`, and asserts the 502
 * EXTERNAL_SERVICE_ERROR naming it and that nothing was written; the answer and how long it took.
 */
async function expectInvitationRefused(
  t: TestServer,
  email: string,
  name: string,
  reason: string,
): Promise<{ r: ApiResult; ms: number }> {
  let answered: { r: ApiResult; ms: number } | undefined;
  await expectNoChange(t, async () => {
    const started = Date.now();
    const r = await call(t, 'POST', '/v1/portal-users', { json: { email, name } });
    answered = { r, ms: Date.now() - started };
    expect(r.status).toBe(502);
    expect(r.body.error).toMatchObject({
      code: 'EXTERNAL_SERVICE_ERROR',
      details: { service: 'mail', reason },
    });
  });
  if (answered === undefined) throw new Error('no answer');
  return answered;
}

describe('invitations over SMTP: a mail failure leaves nothing half-done', () => {
  let smtp: FakeSmtp;
  let t: TestServer;
  beforeAll(async () => {
    smtp = await FakeSmtp.start();
    t = await startTestServer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, mailTimeoutMs: 400 });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  it('SMTP accepts: the portal user is created and the invitation delivered (no outbox row)', async () => {
    smtp.mode = 'accept';
    const r = await call(t, 'POST', '/v1/portal-users', {
      json: { email: 'smtp-ok@example.com', name: 'Smtp Ok' },
    });
    expect(r.status).toBe(201);
    expect(smtp.received.at(-1)).toMatch(/smtp-ok@example\.com/);
    expect(smtp.received.at(-1)).toMatch(/\/v1\/portal-invitations\/[A-Za-z0-9_-]{43}\/accept/);
    expect(await countRows(t, 'mail_outbox')).toBe(0);
  });

  it('SMTP rejects: 502 EXTERNAL_SERVICE_ERROR, and no portal user, audit event or invitation exists', async () => {
    smtp.mode = 'reject';
    const { r } = await expectInvitationRefused(
      t,
      'smtp-rejected@example.com',
      'Rejected',
      'rejected',
    );
    expect(r.body).toEqual({
      error: {
        code: 'EXTERNAL_SERVICE_ERROR',
        message: 'The mail service refused the message; nothing was changed. Try again later.',
        details: { service: 'mail', reason: 'rejected' },
      },
    });
    expect(await countRows(t, 'portal_users', 'email = $1', ['smtp-rejected@example.com'])).toBe(0);
  });

  it('SMTP never answers: 502 after MAIL_TIMEOUT_MS, nothing written', async () => {
    smtp.mode = 'hang';
    const { ms } = await expectInvitationRefused(
      t,
      'smtp-timeout@example.com',
      'Timeout',
      'timeout',
    );
    expect(ms).toBeLessThan(3_000);
  });

  it('resending fails the same way and leaves the pending invitation as it was', async () => {
    smtp.mode = 'reject';
    const carla = await findPortalUser(t, 'carla@example.com');
    await expectNoChange(t, async () => {
      const r = await call(t, 'POST', `/v1/portal-users/${carla.id}/invitation`);
      expect(r.status).toBe(502);
      expect(r.body.error.code).toBe('EXTERNAL_SERVICE_ERROR');
    });
    expect((await findPortalUser(t, 'carla@example.com')).invitation_sent_at).toBe(
      carla.invitation_sent_at,
    );
  });

  it('without an invitation, nothing depends on the mail service', async () => {
    smtp.mode = 'reject';
    const r = await call(t, 'POST', '/v1/portal-users', {
      json: { email: 'no-mail@example.com', name: 'No Mail', send_invitation: false },
    });
    expect(r.status).toBe(201);
  });
});

describe('SMTP_URL pointing at a closed loopback port', () => {
  let t: TestServer;
  beforeAll(async () => {
    // Free now, and outside the kernel's ephemeral range, so nothing listens there meanwhile.
    const port = await freePort();
    t = await startTestServer({ smtpUrl: `smtp://127.0.0.1:${port}`, mailTimeoutMs: 400 });
  });
  afterAll(async () => t?.close());

  it('502 EXTERNAL_SERVICE_ERROR (unreachable); no portal user, no audit event', async () => {
    await expectInvitationRefused(t, 'closed@example.com', 'Closed', 'unreachable');
  });
});

describe('approval requests over SMTP: the admins are mailed; a mail failure does not undo the request', () => {
  let smtp: FakeSmtp;
  let t: TestServer;
  beforeAll(async () => {
    smtp = await FakeSmtp.start();
    t = await startTestServer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, mailTimeoutMs: 400 });
    await requireApproval(t, 'delete_portal_user');
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  /** The owner's 2025-11-25 delete of `id`: its isError code. */
  async function deleteThroughMcp(id: string): Promise<string | undefined> {
    const res = await legacyRequest(t.url, t.tokens.owner, 'tools/call', {
      name: 'delete_portal_user',
      arguments: { id },
    });
    return toolErrorCode(res.body.result);
  }

  it('SMTP accepts: the other admin gets the mail with the console link, the requester none', async () => {
    smtp.mode = 'accept';
    const before = smtp.received.length;
    const user = await findPortalUser(t, 'bruno@example.com');
    expect(await deleteThroughMcp(user.id)).toBe('approval_pending');
    const sent = smtp.received.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/max\.member@acme\.test/);
    expect(sent[0]).toMatch(/\/admin\/approvals/);
    expect(await countRows(t, 'mail_outbox')).toBe(0);
  });

  it('SMTP rejects: the request stands (approval_pending, listed for the admins)', async () => {
    smtp.mode = 'reject';
    const user = await findPortalUser(t, 'ana@example.com');
    expect(await deleteThroughMcp(user.id)).toBe('approval_pending');
    expect(
      await countRows(t, 'mcp_approvals', `status = 'pending' AND target_id = $1`, [user.id]),
    ).toBe(1);
  });
});
