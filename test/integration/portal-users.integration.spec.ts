import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEEDS_REAL_POSTGRES, skipWhen } from '../support/skip.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  alreadyUsed,
  apiError,
  auditFor,
  byText,
  call,
  callTool,
  countRows,
  expectDeleted,
  expectInvalid,
  expectWalksAcme,
  findAccount,
  findPortalUser,
  invitationTokenFor,
  matchesSchema,
  me,
  expectNoChange,
  sql,
  walk,
  type Json,
} from './platform-api.fixtures.js';

describe('REST /v1/portal-users', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t?.close());

  describe('reading', () => {
    it('lists the organisation’s portal users newest first, in the documented shape', async () => {
      const { status, body } = await call(t, 'GET', '/v1/portal-users');
      expect(status).toBe(200);
      expect(matchesSchema('PortalUserPageDto', body)).toEqual([]);
      const emails = body.data.map((u: Json) => u.email);
      expect(emails).toEqual(
        expect.arrayContaining([
          'ana@example.com',
          'bruno@example.com',
          'carla@example.com',
          'diego@example.com',
        ]),
      );
      expect(emails).not.toContain('gary@globex-customer.example');
      expect(body.next_cursor).toBeNull();
      const ana = body.data.find((u: Json) => u.email === 'ana@example.com');
      expect(ana).toMatchObject({ name: 'Ana Souza', status: 'active', external_id: 'pu-1001' });
    });

    it('filters by status, account and text (name or e-mail, case-insensitive)', async () => {
      const initech = await findAccount(t, 'Initech');
      const active = (await call(t, 'GET', '/v1/portal-users?status=active')).body.data;
      expect(active.every((u: Json) => u.status === 'active')).toBe(true);
      expect(active.map((u: Json) => u.email)).toEqual(
        expect.arrayContaining(['ana@example.com', 'bruno@example.com']),
      );
      const ofInitech = (await call(t, 'GET', `/v1/portal-users?account_id=${initech.id}`)).body
        .data;
      expect(ofInitech.map((u: Json) => u.email).sort(byText)).toEqual([
        'ana@example.com',
        'bruno@example.com',
        'carla@example.com',
      ]);
      expect(
        (await call(t, 'GET', '/v1/portal-users?q=SOUZA')).body.data.map((u: Json) => u.email),
      ).toEqual(['ana@example.com']);
      expect((await call(t, 'GET', '/v1/portal-users?q=%25')).body.data).toEqual([]);
    });

    it('gets one by id (schema-valid); an unknown id and another organisation’s id are the same 404', async () => {
      const ana = await findPortalUser(t, 'ana@example.com');
      const got = await call(t, 'GET', `/v1/portal-users/${ana.id}`);
      expect(got.status).toBe(200);
      expect(matchesSchema('PortalUserDto', got.body)).toEqual([]);
      expect(got.body).toEqual(ana);

      const gary = await findPortalUser(t, 'gary@globex-customer.example', 'globex_owner');
      const foreign = await call(t, 'GET', `/v1/portal-users/${gary.id}`);
      const unknown = await call(t, 'GET', `/v1/portal-users/${randomUUID()}`);
      for (const r of [foreign, unknown]) {
        expect(r.status).toBe(404);
        expect(r.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Portal user not found' } });
      }
    });

    it('another organisation’s id is 404 for every write too, and nothing changes', async () => {
      const gary = await findPortalUser(t, 'gary@globex-customer.example', 'globex_owner');
      await expectNoChange(t, async () => {
        for (const [method, path, json] of [
          ['PATCH', `/v1/portal-users/${gary.id}`, { name: 'Hijacked' }],
          ['POST', `/v1/portal-users/${gary.id}/deactivate`, undefined],
          ['POST', `/v1/portal-users/${gary.id}/activate`, undefined],
          ['POST', `/v1/portal-users/${gary.id}/invitation`, undefined],
          ['DELETE', `/v1/portal-users/${gary.id}`, undefined],
        ] as const) {
          const r = await call(t, method, path, { json });
          expect(r.status, `${method} ${path}`).toBe(404);
          expect(r.body).toEqual({
            error: { code: 'NOT_FOUND', message: 'Portal user not found' },
          });
        }
      });
    });

    it('a malformed id is a VALIDATION_ERROR on `id` (before any database access)', async () => {
      expectInvalid(await call(t, 'GET', '/v1/portal-users/not-a-uuid'), [
        { field: 'id', message: 'must be a UUID' },
      ]);
    });

    it('refuses bad and unknown query parameters with per-field details', async () => {
      const r = await call(
        t,
        'GET',
        '/v1/portal-users?status=gone&limit=500&account_id=42&bogus=1',
      );
      expectInvalid(
        r,
        [
          { field: 'bogus', message: 'is not allowed' },
          {
            field: 'status',
            message: 'must be one of the following values: invited, active, inactive',
          },
          { field: 'limit', message: 'must not be greater than 100' },
          { field: 'account_id', message: 'must be a UUID' },
        ],
        'any order',
      );
      expectInvalid(await call(t, 'GET', '/v1/portal-users?cursor=garbage'), [
        {
          field: 'cursor',
          message: 'is not a valid cursor (use next_cursor from a previous page)',
        },
      ]);
    });
  });

  describe('creating', () => {
    it('creates an invited portal user, e-mails the invitation and audits both, in one go', async () => {
      const owner = await me(t);
      const initech = await findAccount(t, 'Initech');
      const r = await call(t, 'POST', '/v1/portal-users', {
        json: {
          email: ' Eva.Nunes@Example.com ',
          name: 'Eva Nunes',
          external_id: 'pu-2001',
          account_id: initech.id,
        },
      });
      expect(r.status).toBe(201);
      expect(matchesSchema('PortalUserDto', r.body)).toEqual([]);
      expect(r.body).toMatchObject({
        email: 'Eva.Nunes@Example.com',
        name: 'Eva Nunes',
        external_id: 'pu-2001',
        account_id: initech.id,
        status: 'invited',
        activated_at: null,
      });
      expect(r.body.invitation_sent_at).not.toBeNull();
      expect(Date.parse(r.body.invitation_expires_at) - Date.now()).toBeGreaterThan(
        6 * 24 * 3600 * 1000,
      );

      const mail = (await call(t, 'GET', '/v1/mail/outbox?to=eva.nunes@example.com')).body.data;
      expect(mail).toHaveLength(1);
      expect(mail[0]).toMatchObject({ subject: 'Acme invited you to its customer portal' });
      expect(mail[0].text).toContain('Hello Eva Nunes');

      const events = await auditFor(t, r.body.id);
      expect(events.map((e) => e.action)).toEqual([
        'portal_user.invitation_sent',
        'portal_user.created',
      ]);
      for (const e of events) {
        expect(matchesSchema('AuditEventDto', e)).toEqual([]);
        expect(e).toMatchObject({
          actor_type: 'member',
          actor_user_id: owner.userId,
          token_id: owner.tokenId,
          channel: 'api',
          resource_type: 'portal_user',
          resource_id: r.body.id,
          confirmation_id: null,
        });
        expect(e.request_id).toEqual(expect.any(String));
      }
      expect(events[1].changes).toEqual({
        email: { before: null, after: 'Eva.Nunes@Example.com' },
        name: { before: null, after: 'Eva Nunes' },
        external_id: { before: null, after: 'pu-2001' },
        account_id: { before: null, after: initech.id },
        status: { before: null, after: 'invited' },
      });
      // The invitation secret never reaches the audit trail or the database in clear.
      const token = await invitationTokenFor(t, 'eva.nunes@example.com');
      expect(JSON.stringify(events)).not.toContain(token);
      expect(JSON.stringify(await sql(t, 'SELECT * FROM portal_users'))).not.toContain(token);
    });

    it('send_invitation: false creates without mail; the first invitation is sent with resend', async () => {
      const r = await call(t, 'POST', '/v1/portal-users', {
        json: { email: 'quiet@example.com', name: 'Quiet', send_invitation: false },
      });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        status: 'invited',
        invitation_sent_at: null,
        invitation_expires_at: null,
      });
      expect(await countRows(t, 'mail_outbox', 'recipient = $1', ['quiet@example.com'])).toBe(0);
      expect((await auditFor(t, r.body.id)).map((e) => e.action)).toEqual(['portal_user.created']);

      const sent = await call(t, 'POST', `/v1/portal-users/${r.body.id}/invitation`);
      expect(sent.status).toBe(200);
      expect(sent.body.invitation_sent_at).not.toBeNull();
      expect(await countRows(t, 'mail_outbox', 'recipient = $1', ['quiet@example.com'])).toBe(1);
    });

    it('VALIDATION_ERROR names every failing field; nothing is written', async () => {
      await expectNoChange(t, async () => {
        const bad = await call(t, 'POST', '/v1/portal-users', {
          json: { email: 'not-an-email', name: 'X' },
        });
        expect(bad).toEqual(
          apiError(422, 'VALIDATION_ERROR', 'Validation failed: email must be an email', [
            { field: 'email', message: 'must be an email' },
          ]),
        );

        const many = await call(t, 'POST', '/v1/portal-users', {
          json: {
            name: '',
            external_id: 7,
            account_id: 'acc-1',
            send_invitation: 'yes',
            bogus: true,
          },
        });
        expectInvalid(
          many,
          [
            { field: 'email', message: 'is required' },
            { field: 'name', message: 'must not be empty' },
            { field: 'external_id', message: 'must be a string' },
            { field: 'account_id', message: 'must be a UUID' },
            { field: 'send_invitation', message: 'must be a boolean value' },
            { field: 'bogus', message: 'is not allowed' },
          ],
          'any order',
        );

        const notObject = await call(t, 'POST', '/v1/portal-users', { json: [1, 2] });
        expectInvalid(notObject, [{ field: 'body', message: 'must be a JSON object' }]);
      });
    });

    it('DUPLICATE_ERROR for an e-mail already used in the organisation, ignoring case; nothing is written', async () => {
      await expectNoChange(t, async () => {
        const r = await call(t, 'POST', '/v1/portal-users', {
          json: { email: 'ANA@example.COM', name: 'Ana Again' },
        });
        expect(r).toEqual(
          alreadyUsed(
            'DUPLICATE_ERROR',
            'email',
            'A portal user with this email already exists in this organisation',
          ),
        );
      });
      // Another organisation may use the same e-mail.
      const globex = await call(t, 'POST', '/v1/portal-users', {
        token: 'globex_owner',
        json: { email: 'ana@example.com', name: 'Ana at Globex', send_invitation: false },
      });
      expect(globex.status).toBe(201);
    });

    it('CONFLICT for an external_id already used in the organisation; nothing is written', async () => {
      await expectNoChange(t, async () => {
        const r = await call(t, 'POST', '/v1/portal-users', {
          json: { email: 'new1@example.com', name: 'New', external_id: 'pu-1001' },
        });
        expect(r).toEqual(
          alreadyUsed(
            'CONFLICT',
            'external_id',
            'external_id is already used by another portal user in this organisation',
          ),
        );
      });
    });

    // Real Postgres only: the embedded PGlite socket server garbles concurrent extended-protocol
    // traffic while any connection holds a transaction ("unnamed prepared statement does not exist").
    it(
      'the database decides uniqueness: of concurrent creates with one e-mail exactly one wins',
      skipWhen(
        NEEDS_REAL_POSTGRES &&
          'real Postgres only: the embedded engine garbles concurrent extended-protocol traffic',
      ),
      async () => {
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            call(t, 'POST', '/v1/portal-users', {
              json: { email: 'race@example.com', name: `Racer ${i}`, send_invitation: false },
            }),
          ),
        );
        expect(results.filter((r) => r.status === 201)).toHaveLength(1);
        expect(
          results.filter((r) => r.status === 409 && r.body.error.code === 'DUPLICATE_ERROR'),
        ).toHaveLength(5);
        expect(await countRows(t, 'portal_users', 'lower(email) = $1', ['race@example.com'])).toBe(
          1,
        );
        expect(
          await countRows(
            t,
            'audit_events',
            `action = 'portal_user.created' AND changes->'email'->>'after' = $1`,
            ['race@example.com'],
          ),
        ).toBe(1);
      },
    );

    it('account_id must be an account of this organisation (VALIDATION_ERROR on account_id); nothing is written', async () => {
      const globexAccount = await findAccount(t, 'Globex Holdings', 'globex_owner');
      await expectNoChange(t, async () => {
        for (const accountId of [globexAccount.id, randomUUID()]) {
          const r = await call(t, 'POST', '/v1/portal-users', {
            json: { email: 'acc@example.com', name: 'Acc', account_id: accountId },
          });
          expect(r.status).toBe(422);
          expect(r.body.error).toEqual({
            code: 'VALIDATION_ERROR',
            message:
              'Validation failed: account_id must be the id of an account of this organisation',
            details: [
              { field: 'account_id', message: 'must be the id of an account of this organisation' },
            ],
          });
        }
      });
    });
  });

  describe('lifecycle', () => {
    it('the invitation link activates the portal user once; then it is gone', async () => {
      const created = await call(t, 'POST', '/v1/portal-users', {
        json: { email: 'fabio@example.com', name: 'Fábio Dias' },
      });
      const token = await invitationTokenFor(t, 'fabio@example.com');
      const accepted = await t.request(`/v1/portal-invitations/${token}/accept`, {
        method: 'POST',
      });
      expect(accepted.status).toBe(200);
      const body = await accepted.json();
      expect(matchesSchema('AcceptedInvitationDto', body)).toEqual([]);
      expect(body).toEqual({
        portal_user_id: created.body.id,
        email: 'fabio@example.com',
        name: 'Fábio Dias',
        status: 'active',
      });
      expect((await call(t, 'GET', `/v1/portal-users/${created.body.id}`)).body).toMatchObject({
        status: 'active',
        invitation_expires_at: null,
      });
      const [accept] = await auditFor(t, created.body.id);
      expect(accept).toMatchObject({
        action: 'portal_user.invitation_accepted',
        actor_type: 'portal_user',
        actor_user_id: null,
        token_id: null,
        channel: 'api',
        changes: { status: { before: 'invited', after: 'active' } },
      });

      await expectNoChange(t, async () => {
        for (const secret of [token, 'x'.repeat(43), 'short']) {
          const again = await t.request(`/v1/portal-invitations/${secret}/accept`, {
            method: 'POST',
          });
          expect(again.status).toBe(404);
          expect(await again.json()).toEqual({
            error: { code: 'NOT_FOUND', message: 'Invitation not found, already used or expired' },
          });
        }
      });
    });

    it('resending replaces the link (the old one stops working); resending to an active user is BAD_REQUEST', async () => {
      await call(t, 'POST', '/v1/portal-users', {
        json: { email: 'gil@example.com', name: 'Gil' },
      });
      const first = await invitationTokenFor(t, 'gil@example.com');
      const gil = await findPortalUser(t, 'gil@example.com');
      const resent = await call(t, 'POST', `/v1/portal-users/${gil.id}/invitation`, {
        token: 'member',
      });
      expect(resent.status).toBe(200);
      const second = await invitationTokenFor(t, 'gil@example.com');
      expect(second).not.toBe(first);
      expect(
        (await t.request(`/v1/portal-invitations/${first}/accept`, { method: 'POST' })).status,
      ).toBe(404);
      expect(
        (await t.request(`/v1/portal-invitations/${second}/accept`, { method: 'POST' })).status,
      ).toBe(200);

      const ana = await findPortalUser(t, 'ana@example.com');
      await expectNoChange(t, async () => {
        expect(await call(t, 'POST', `/v1/portal-users/${ana.id}/invitation`)).toEqual(
          apiError(
            400,
            'BAD_REQUEST',
            'The portal user is already active; there is no invitation to resend',
            { status: 'active' },
          ),
        );
      });
    });

    it('deactivating a portal user who never accepted is FORBIDDEN, and so is activating them; nothing changes', async () => {
      const carla = await findPortalUser(t, 'carla@example.com');
      await expectNoChange(t, async () => {
        expect(await call(t, 'POST', `/v1/portal-users/${carla.id}/deactivate`)).toEqual(
          apiError(
            403,
            'FORBIDDEN',
            'The portal user has not accepted their invitation yet, so there is nothing to deactivate; delete them instead',
            { status: 'invited' },
          ),
        );
        const a = await call(t, 'POST', `/v1/portal-users/${carla.id}/activate`);
        expect(a.status).toBe(403);
        expect(a.body.error.code).toBe('FORBIDDEN');
      });
    });

    it('active → inactive → active, each change audited once; repeating one is a no-op', async () => {
      const bruno = await findPortalUser(t, 'bruno@example.com');
      const off = await call(t, 'POST', `/v1/portal-users/${bruno.id}/deactivate`);
      expect(off.status).toBe(200);
      expect(off.body).toMatchObject({ status: 'inactive' });
      expect(off.body.deactivated_at).not.toBeNull();
      const again = await call(t, 'POST', `/v1/portal-users/${bruno.id}/deactivate`);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(off.body);
      const on = await call(t, 'POST', `/v1/portal-users/${bruno.id}/activate`);
      expect(on.body).toMatchObject({ status: 'active' });
      expect((await auditFor(t, bruno.id)).map((e) => [e.action, e.changes])).toEqual([
        ['portal_user.activated', { status: { before: 'inactive', after: 'active' } }],
        ['portal_user.deactivated', { status: { before: 'active', after: 'inactive' } }],
      ]);
    });
  });

  describe('updating and deleting', () => {
    it('PATCH changes only the fields sent and audits before/after of what changed', async () => {
      const diego = await findPortalUser(t, 'diego@example.com');
      const umbrella = await findAccount(t, 'Umbrella Corp');
      const r = await call(t, 'PATCH', `/v1/portal-users/${diego.id}`, {
        json: { name: 'Diego R. Rocha', account_id: umbrella.id, external_id: null },
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        name: 'Diego R. Rocha',
        account_id: umbrella.id,
        email: 'diego@example.com',
        status: 'inactive',
      });
      const [event] = await auditFor(t, diego.id);
      expect(event).toMatchObject({
        action: 'portal_user.updated',
        changes: {
          name: { before: 'Diego Rocha', after: 'Diego R. Rocha' },
          account_id: { before: null, after: umbrella.id },
        },
      });
      expect(Object.keys(event.changes).sort(byText)).toEqual(['account_id', 'name']);

      const count = await countRows(t, 'audit_events');
      const same = await call(t, 'PATCH', `/v1/portal-users/${diego.id}`, {
        json: { name: 'Diego R. Rocha' },
      });
      expect(same.status).toBe(200);
      expect(await countRows(t, 'audit_events')).toBe(count);
    });

    it('PATCH refuses null for required fields, duplicates and foreign accounts, changing nothing', async () => {
      const diego = await findPortalUser(t, 'diego@example.com');
      const globexAccount = await findAccount(t, 'Globex Holdings', 'globex_owner');
      await expectNoChange(t, async () => {
        const nul = await call(t, 'PATCH', `/v1/portal-users/${diego.id}`, {
          json: { name: null, email: 'nope' },
        });
        expectInvalid(nul, [
          { field: 'email', message: 'must be an email' },
          { field: 'name', message: 'must not be null' },
        ]);
        const dup = await call(t, 'PATCH', `/v1/portal-users/${diego.id}`, {
          json: { email: 'Ana@Example.com' },
        });
        expect(dup.status).toBe(409);
        expect(dup.body.error.code).toBe('DUPLICATE_ERROR');
        const ext = await call(t, 'PATCH', `/v1/portal-users/${diego.id}`, {
          json: { external_id: 'pu-1001' },
        });
        expect(ext.status).toBe(409);
        expect(ext.body.error.code).toBe('CONFLICT');
        const acc = await call(t, 'PATCH', `/v1/portal-users/${diego.id}`, {
          json: { account_id: globexAccount.id },
        });
        expectInvalid(acc, [
          { field: 'account_id', message: 'must be the id of an account of this organisation' },
        ]);
      });
    });

    it('changing the e-mail of an invited portal user voids the pending invitation link', async () => {
      const created = await call(t, 'POST', '/v1/portal-users', {
        json: { email: 'helena@example.com', name: 'Helena' },
      });
      const token = await invitationTokenFor(t, 'helena@example.com');
      const r = await call(t, 'PATCH', `/v1/portal-users/${created.body.id}`, {
        json: { email: 'helena.new@example.com' },
      });
      expect(r.body).toMatchObject({
        email: 'helena.new@example.com',
        status: 'invited',
        invitation_expires_at: null,
      });
      expect(
        (await t.request(`/v1/portal-invitations/${token}/accept`, { method: 'POST' })).status,
      ).toBe(404);
    });

    it('DELETE removes the record and audits what it was', async () => {
      const created = await call(t, 'POST', '/v1/portal-users', {
        json: { email: 'ivo@example.com', name: 'Ivo', send_invitation: false },
      });
      await expectDeleted(t, '/v1/portal-users', created.body.id, 'DeletedPortalUserDto');
      expect((await call(t, 'DELETE', `/v1/portal-users/${created.body.id}`)).status).toBe(404);
      const [event] = await auditFor(t, created.body.id);
      expect(event).toMatchObject({
        action: 'portal_user.deleted',
        changes: {
          email: { before: 'ivo@example.com', after: null },
          status: { before: 'invited', after: null },
        },
      });
    });
  });

  describe('pagination', () => {
    it('walks every page without duplicates or gaps, in a stable newest-first order', async () => {
      for (let i = 0; i < 23; i++) {
        const r = await call(t, 'POST', '/v1/portal-users', {
          json: { email: `page${i}@example.com`, name: `Page ${i}`, send_invitation: false },
        });
        expect(r.status).toBe(201);
      }
      const rows = await expectWalksAcme(t, '/v1/portal-users', 'portal_users', 7);
      const created = rows.map((r) => Date.parse(r.created_at));
      expect(created).toEqual([...created].sort((a, b) => b - a));
      const first = await call(t, 'GET', '/v1/portal-users');
      expect(first.body.data).toHaveLength(20);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const filtered = await walk(t, '/v1/portal-users?q=page', 5);
      expect(filtered.rows).toHaveLength(23);
    });
  });

  describe('authorization on REST routes (demo tokens)', () => {
    it('member deleting: insufficient_permission naming portal_users.delete; nothing changes', async () => {
      const ana = await findPortalUser(t, 'ana@example.com');
      await expectNoChange(t, async () => {
        const r = await call(t, 'DELETE', `/v1/portal-users/${ana.id}`, { token: 'member' });
        expect(r.status).toBe(403);
        expect(r.body.error.code).toBe('insufficient_permission');
        expect(r.body.error.details).toMatchObject({ permission: 'portal_users.delete' });
      });
    });

    it('read-only personal token writing: insufficient_scope naming portal_users:write', async () => {
      await expectNoChange(t, async () => {
        const r = await call(t, 'POST', '/v1/portal-users', {
          token: 'readonly_pat',
          json: { email: 'ro@example.com', name: 'RO' },
        });
        expect(r.status).toBe(403);
        expect(r.body.error.code).toBe('insufficient_scope');
        expect(r.body.error.details).toMatchObject({
          required_scope: 'portal_users:write',
          token_kind: 'personal',
        });
      });
      expect((await call(t, 'GET', '/v1/portal-users', { token: 'readonly_pat' })).status).toBe(
        200,
      );
    });

    it('OAuth token writing (through /mcp, its only resource): insufficient_scope saying OAuth is read-only', async () => {
      const ana = await findPortalUser(t, 'ana@example.com');
      await expectNoChange(t, async () => {
        const r = await callTool(t, 'oauth_reader', 'deactivate_portal_user', { id: ana.id });
        expect(r.isError).toBe(true);
        expect(r.body.error.code).toBe('insufficient_scope');
        expect(r.body.error.message).toMatch(/OAuth access is read-only/);
        expect(r.body.error.details).toMatchObject({ token_kind: 'oauth', oauth_read_only: true });
        // The REST route itself refuses the token: it was issued for the MCP URL.
        const rest = await call(t, 'POST', `/v1/portal-users/${ana.id}/deactivate`, {
          token: 'oauth_reader',
        });
        expect(rest.status).toBe(401);
        expect(rest.body.error.code).toBe('INVALID_TOKEN');
      });
      expect((await callTool(t, 'oauth_reader', 'list_portal_users')).isError).toBe(false);
    });

    it('inactive membership and former member are refused before anything else', async () => {
      const a = await call(t, 'GET', '/v1/portal-users', { token: 'inactive_member' });
      expect(a.status).toBe(403);
      expect(a.body.error.code).toBe('membership_inactive');
      const b = await call(t, 'POST', '/v1/portal-users', {
        token: 'former_member',
        json: { email: 'bad' },
      });
      expect(b.status).toBe(403);
      expect(b.body.error.code).toBe('key_owner_not_member');
      expect((await t.request('/v1/portal-users')).status).toBe(401);
    });
  });
});
