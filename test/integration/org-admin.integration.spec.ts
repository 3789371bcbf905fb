import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  call,
  expectNoChange,
  matchesSchema,
  me,
  walk,
  type Json,
} from './platform-api.fixtures.js';

describe('REST /v1/members and /v1/tokens (admin operations)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t?.close());

  async function memberId(email: string): Promise<string> {
    const { rows } = await walk(t, '/v1/members', 100);
    const m = rows.find((r) => r.email === email);
    if (m === undefined) throw new Error(`no member ${email}`);
    const id: string = m.user_id;
    return id;
  }

  describe('members', () => {
    it('lists members by e-mail with their role, status and permissions; pages walk once', async () => {
      const r = await call(t, 'GET', '/v1/members');
      expect(r.status).toBe(200);
      expect(matchesSchema('MemberPageDto', r.body)).toEqual([]);
      expect(r.body.data.map((m: Json) => [m.email, m.role, m.status])).toEqual([
        ['ingrid.inactive@acme.test', 'member', 'inactive'],
        ['max.member@acme.test', 'member', 'active'],
        ['olivia.owner@acme.test', 'owner', 'active'],
      ]);
      const { rows, pages } = await walk(t, '/v1/members', 1);
      expect(rows.map((m) => m.email)).toEqual(r.body.data.map((m: Json) => m.email));
      expect(pages).toBe(3);
      expect((await call(t, 'GET', '/v1/members?status=inactive')).body.data).toHaveLength(1);
    });

    it('needs the admin permission', async () => {
      const r = await call(t, 'GET', '/v1/members', { token: 'member' });
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({
        code: 'insufficient_permission',
        details: { permission: 'admin' },
      });
    });

    it('needs the org:admin scope too: an admin’s read-only token cannot administer, nor can an OAuth token (issued for the MCP URL)', async () => {
      const max = await memberId('max.member@acme.test');
      const owner = await me(t);
      const ownerToken = (await call(t, 'GET', `/v1/tokens?user_id=${owner.userId}`)).body.data[0]
        .id;
      await expectNoChange(t, async () => {
        for (const [token, status, error] of [
          [
            'readonly_pat',
            403,
            { code: 'insufficient_scope', details: { required_scope: 'org:admin' } },
          ],
          [
            'oauth_reader',
            401,
            { code: 'INVALID_TOKEN', message: expect.stringMatching(/audience/) },
          ],
        ] as const) {
          for (const [method, path, json] of [
            ['GET', '/v1/members', undefined],
            ['PATCH', `/v1/members/${max}`, { role: 'owner' }],
            ['GET', '/v1/tokens', undefined],
            ['POST', '/v1/tokens', { name: 'm', scopes: ['accounts:read'] }],
            ['DELETE', `/v1/tokens/${ownerToken}`, undefined],
            ['GET', '/v1/mail/outbox', undefined],
          ] as const) {
            const r = await call(t, method, path, { token, json });
            expect({ token, method, path, status: r.status }).toEqual({
              token,
              method,
              path,
              status,
            });
            expect(r.body.error).toMatchObject(error);
          }
        }
      });
    });

    it('a role brings its preset permissions; the change is audited and takes effect on the next request', async () => {
      const owner = await me(t);
      const max = await memberId('max.member@acme.test');
      const r = await call(t, 'PATCH', `/v1/members/${max}`, { json: { role: 'viewer' } });
      expect(r.status).toBe(200);
      expect(matchesSchema('MemberDto', r.body)).toEqual([]);
      expect(r.body).toMatchObject({
        role: 'viewer',
        permissions: ['portal_users.read', 'accounts.read', 'audit.read'],
      });
      const [event] = (
        await call(t, 'GET', `/v1/audit-events?resource_type=member&resource_id=${max}`)
      ).body.data;
      expect(event).toMatchObject({
        action: 'member.updated',
        actor_user_id: owner.userId,
        token_id: owner.tokenId,
        channel: 'api',
        changes: {
          role: { before: 'member', after: 'viewer' },
          permissions: {
            before: [
              'portal_users.read',
              'portal_users.manage',
              'portal_users.invite',
              'accounts.read',
              'accounts.manage',
            ],
            after: ['portal_users.read', 'accounts.read', 'audit.read'],
          },
        },
      });
      const refused = await call(t, 'POST', '/v1/portal-users', {
        token: 'member',
        json: { email: 'v@example.com', name: 'V' },
      });
      expect(refused.body.error).toMatchObject({
        code: 'insufficient_permission',
        details: { permission: 'portal_users.manage' },
      });

      const custom = await call(t, 'PATCH', `/v1/members/${max}`, {
        json: { permissions: ['portal_users.manage', 'portal_users.read', 'accounts.read'] },
      });
      expect(custom.body).toMatchObject({
        role: 'custom',
        permissions: ['portal_users.read', 'portal_users.manage', 'accounts.read'],
      });
      expect(
        (await call(t, 'PATCH', `/v1/members/${max}`, { json: { role: 'member' } })).body.role,
      ).toBe('member');
    });

    it('deactivating a member stops their tokens (membership_inactive) until reactivated', async () => {
      const max = await memberId('max.member@acme.test');
      expect(
        (await call(t, 'PATCH', `/v1/members/${max}`, { json: { status: 'inactive' } })).body
          .status,
      ).toBe('inactive');
      expect((await call(t, 'GET', '/v1/portal-users', { token: 'member' })).body.error.code).toBe(
        'membership_inactive',
      );
      expect(
        (await call(t, 'PATCH', `/v1/members/${max}`, { json: { status: 'active' } })).body.status,
      ).toBe('active');
      expect((await call(t, 'GET', '/v1/portal-users', { token: 'member' })).status).toBe(200);
    });

    it('refuses to leave the organisation without an active admin (FORBIDDEN); nothing changes', async () => {
      const olivia = await memberId('olivia.owner@acme.test');
      await expectNoChange(t, async () => {
        for (const json of [
          { role: 'member' },
          { status: 'inactive' },
          { permissions: ['audit.read'] },
        ]) {
          const r = await call(t, 'PATCH', `/v1/members/${olivia}`, { json });
          expect(r.status).toBe(403);
          expect(r.body).toEqual({
            error: {
              code: 'FORBIDDEN',
              message:
                'This change would leave the organisation without an active admin; make someone else admin first',
              details: { reason: 'last_admin' },
            },
          });
        }
      });
    });

    it('validation, unknown and foreign members: 422 / 404, nothing changes', async () => {
      const max = await memberId('max.member@acme.test');
      const gina = (await me(t, 'globex_owner')).userId;
      await expectNoChange(t, async () => {
        const bad = await call(t, 'PATCH', `/v1/members/${max}`, {
          json: { role: 'king', permissions: ['fly'], status: null },
        });
        expect(bad.status).toBe(422);
        expect(bad.body.error.details).toEqual(
          expect.arrayContaining([
            {
              field: 'role',
              message: 'must be one of the following values: owner, admin, member, viewer, custom',
            },
            {
              field: 'permissions',
              message: expect.stringMatching(
                /^each value must be one of the following values: portal_users\.read/,
              ),
            },
            { field: 'status', message: 'must not be null' },
          ]),
        );
        const mixed = await call(t, 'PATCH', `/v1/members/${max}`, {
          json: { role: 'admin', permissions: ['admin'] },
        });
        expect(mixed.status).toBe(422);
        expect(mixed.body.error.details).toEqual([
          { field: 'role', message: 'must be custom (or left out) when permissions are given' },
        ]);
        for (const id of [gina, randomUUID()]) {
          const r = await call(t, 'PATCH', `/v1/members/${id}`, { json: { status: 'inactive' } });
          expect(r.status).toBe(404);
          expect(r.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Member not found' } });
        }
      });
    });
  });

  describe('tokens', () => {
    it('an admin lists everyone’s tokens; others are refused; secrets never appear', async () => {
      const owner = await me(t);
      for (const path of ['/v1/tokens', `/v1/tokens?user_id=${owner.userId}`]) {
        const other = await call(t, 'GET', path, { token: 'member' });
        expect(other.status).toBe(403);
        expect(other.body.error).toMatchObject({
          code: 'insufficient_permission',
          details: { permission: 'admin' },
        });
      }

      const all = await call(t, 'GET', '/v1/tokens');
      expect(all.status).toBe(200);
      expect(matchesSchema('TokenPageDto', all.body)).toEqual([]);
      const names = all.body.data.map((k: Json) => k.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'Owner (all scopes)',
          'Owner read-only',
          'Demo MCP client',
          'Inactive member',
        ]),
      );
      expect(names).not.toContain('Globex owner (all scopes)');
      expect(JSON.stringify(all.body)).not.toMatch(/(pat|oat)_[0-9A-Za-z]{40}/);
      const oauth = all.body.data.find((k: Json) => k.kind === 'oauth');
      expect(oauth).toMatchObject({
        client_name: 'Demo MCP client',
        status: 'active',
        scopes: ['accounts:read', 'audit:read', 'portal_users:read'],
      });
      const ownerOnly = (await call(t, 'GET', `/v1/tokens?user_id=${owner.userId}`)).body.data;
      expect(ownerOnly.every((k: Json) => k.user_id === owner.userId)).toBe(true);
    });

    it('creates a personal token: the secret once, works at once, audited without the secret', async () => {
      const owner = await me(t);
      const expires = new Date(Date.now() + 86_400_000).toISOString();
      const r = await call(t, 'POST', '/v1/tokens', {
        json: {
          name: 'CI pipeline',
          scopes: ['portal_users:read', 'accounts:write'],
          expires_at: expires,
        },
      });
      expect(r.status).toBe(201);
      expect(matchesSchema('CreatedTokenDto', r.body)).toEqual([]);
      expect(r.body).toMatchObject({
        kind: 'personal',
        name: 'CI pipeline',
        user_id: owner.userId,
        scopes: ['accounts:write', 'portal_users:read'],
        status: 'active',
        expires_at: expires,
      });
      expect(r.body.secret).toMatch(/^pat_[0-9A-Za-z]{40}$/);
      expect(r.body.secret.startsWith(r.body.token_prefix)).toBe(true);
      const who = await call(t, 'GET', '/v1/me', { token: r.body.secret });
      expect(who.body.token.id).toBe(r.body.id);

      const listed = (await call(t, 'GET', '/v1/tokens')).body.data.find(
        (k: Json) => k.id === r.body.id,
      );
      expect(listed).not.toHaveProperty('secret');
      const [event] = (
        await call(t, 'GET', `/v1/audit-events?resource_type=token&resource_id=${r.body.id}`)
      ).body.data;
      expect(event).toMatchObject({
        action: 'token.created',
        actor_user_id: owner.userId,
        token_id: owner.tokenId,
        changes: {
          name: { before: null, after: 'CI pipeline' },
          scopes: { before: null, after: ['accounts:write', 'portal_users:read'] },
          expires_at: { before: null, after: expires },
        },
      });
      expect(JSON.stringify(event)).not.toContain(r.body.secret);
    });

    it('a token cannot mint a token that reaches further than itself; members cannot mint at all', async () => {
      await expectNoChange(t, async () => {
        const ro = await call(t, 'POST', '/v1/tokens', {
          token: 'readonly_pat',
          json: { name: 'escalate', scopes: ['portal_users:write'] },
        });
        expect(ro.status).toBe(403);
        expect(ro.body.error).toMatchObject({
          code: 'insufficient_scope',
          details: { required_scope: 'org:admin' },
        });
        // An OAuth token reaches no REST route: it was issued for the MCP URL.
        const oauth = await call(t, 'POST', '/v1/tokens', {
          token: 'oauth_reader',
          json: { name: 'escalate', scopes: ['accounts:write'] },
        });
        expect(oauth.body.error.code).toBe('INVALID_TOKEN');
        const member = await call(t, 'POST', '/v1/tokens', {
          token: 'member',
          json: { name: 'mine', scopes: [] },
        });
        expect(member.body.error).toMatchObject({
          code: 'insufficient_permission',
          details: { permission: 'admin' },
        });
      });
      const narrower = await call(t, 'POST', '/v1/tokens', {
        json: { name: 'narrower', scopes: ['audit:read', 'org:admin'] },
      });
      expect(narrower.status).toBe(201);
      const noAdmin = await call(t, 'POST', '/v1/tokens', {
        token: narrower.body.secret,
        json: { name: 'escalate', scopes: ['accounts:read'] },
      });
      expect(noAdmin.body.error).toMatchObject({
        code: 'insufficient_scope',
        details: { required_scope: ['accounts:read'] },
      });
    });

    it('a token never mints a token that lives longer than itself', async () => {
      const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
      const expiring = await call(t, 'POST', '/v1/tokens', {
        json: { name: 'expiring', scopes: ['accounts:read', 'org:admin'], expires_at: inAnHour },
      });
      expect(expiring.status).toBe(201);
      await expectNoChange(t, async () => {
        for (const expires_at of [
          null,
          undefined,
          new Date(Date.now() + 7_200_000).toISOString(),
        ]) {
          const r = await call(t, 'POST', '/v1/tokens', {
            token: expiring.body.secret,
            json: { name: 'forever', scopes: ['accounts:read'], expires_at },
          });
          expect(r.status).toBe(422);
          expect(r.body.error.details).toEqual([
            {
              field: 'expires_at',
              message: expect.stringMatching(/^must be set, and no later than /),
            },
          ]);
        }
      });
      const shorter = await call(t, 'POST', '/v1/tokens', {
        token: expiring.body.secret,
        json: { name: 'shorter', scopes: ['accounts:read'], expires_at: inAnHour },
      });
      expect(shorter.status).toBe(201);
    });

    it('validation: bad scopes, past expiry, unknown fields → 422; nothing written', async () => {
      await expectNoChange(t, async () => {
        const bad = await call(t, 'POST', '/v1/tokens', {
          json: { name: '', scopes: ['root'], expires_at: 'tomorrow', kind: 'oauth' },
        });
        expect(bad.status).toBe(422);
        expect(bad.body.error.details).toEqual(
          expect.arrayContaining([
            { field: 'name', message: 'must not be empty' },
            {
              field: 'scopes',
              message: expect.stringMatching(
                /^each value must be one of the following values: portal_users:read/,
              ),
            },
            {
              field: 'expires_at',
              message: 'must be an RFC 3339 date-time, e.g. 2026-01-31T09:00:00Z',
            },
            { field: 'kind', message: 'is not allowed' },
          ]),
        );
        const past = await call(t, 'POST', '/v1/tokens', {
          json: { name: 'old', scopes: [], expires_at: '2020-01-01T00:00:00Z' },
        });
        expect(past.status).toBe(422);
        expect(past.body.error.details).toEqual([
          { field: 'expires_at', message: 'must be in the future' },
        ]);
      });
    });

    it('revokes a token (it stops working at once); revoking again is a no-op; another org’s token is 404', async () => {
      const created = await call(t, 'POST', '/v1/tokens', {
        json: { name: 'short-lived', scopes: ['portal_users:read'] },
      });
      const r = await call(t, 'DELETE', `/v1/tokens/${created.body.id}`);
      expect(r.status).toBe(200);
      expect(matchesSchema('TokenDto', r.body)).toEqual([]);
      expect(r.body).toMatchObject({ id: created.body.id, status: 'revoked' });
      expect((await call(t, 'GET', '/v1/me', { token: created.body.secret })).status).toBe(401);
      const trail = async (): Promise<Json[]> =>
        (
          await call(
            t,
            'GET',
            `/v1/audit-events?resource_type=token&resource_id=${created.body.id}`,
          )
        ).body.data;
      expect((await trail()).map((e) => e.action)).toEqual(['token.revoked', 'token.created']);
      expect((await call(t, 'DELETE', `/v1/tokens/${created.body.id}`)).body).toEqual(r.body);
      expect(await trail()).toHaveLength(2);

      const globexTokens = await call(t, 'GET', '/v1/tokens', { token: 'globex_owner' });
      const globexToken: string = globexTokens.body.data[0].id;
      await expectNoChange(t, async () => {
        for (const id of [globexToken, randomUUID()]) {
          const nf = await call(t, 'DELETE', `/v1/tokens/${id}`);
          expect(nf.status).toBe(404);
          expect(nf.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Token not found' } });
        }
        const member = await call(t, 'DELETE', `/v1/tokens/${globexToken}`, { token: 'member' });
        expect(member.body.error.code).toBe('insufficient_permission');
      });
      expect((await call(t, 'GET', '/v1/me', { token: 'globex_owner' })).status).toBe(200);
    });
  });
});
