import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  alreadyUsed,
  apiError,
  auditFor,
  byText,
  call,
  callTool,
  expectDeleted,
  expectInvalid,
  expectWalksAcme,
  findAccount,
  findPortalUser,
  invitationTokenFor,
  matchesSchema,
  me,
  expectNoChange,
  walk,
  type Json,
} from './platform-api.fixtures.js';

describe('REST /v1/accounts', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t?.close());

  it('lists and gets the organisation’s accounts only, in the documented shape', async () => {
    const list = await call(t, 'GET', '/v1/accounts');
    expect(list.status).toBe(200);
    expect(matchesSchema('AccountPageDto', list.body)).toEqual([]);
    expect(list.body.data.map((a: Json) => a.name).sort(byText)).toEqual([
      'Initech',
      'Umbrella Corp',
    ]);
    const initech = list.body.data.find((a: Json) => a.name === 'Initech');
    expect(initech).toMatchObject({ external_id: 'crm-1001', tax_id: '12.345.678/0001-90' });
    const got = await call(t, 'GET', `/v1/accounts/${initech.id}`);
    expect(got.status).toBe(200);
    expect(matchesSchema('AccountDto', got.body)).toEqual([]);
    expect(got.body).toEqual(initech);
  });

  it('another organisation’s account is indistinguishable from a missing one (404) for reads and writes', async () => {
    const globex = await findAccount(t, 'Globex Holdings', 'globex_owner');
    await expectNoChange(t, async () => {
      for (const [method, json] of [
        ['GET'],
        ['PATCH', { name: 'Mine now' }],
        ['DELETE'],
      ] as const) {
        for (const id of [globex.id, randomUUID()]) {
          const r = await call(t, method, `/v1/accounts/${id}`, { json });
          expect(r.status).toBe(404);
          expect(r.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Account not found' } });
        }
      }
    });
    expectInvalid(await call(t, 'GET', '/v1/accounts/123'), [
      { field: 'id', message: 'must be a UUID' },
    ]);
  });

  it('creates an account and audits it (actor, token, channel api, changes)', async () => {
    const owner = await me(t, 'member');
    const r = await call(t, 'POST', '/v1/accounts', {
      token: 'member',
      json: { name: '  Hooli ', external_id: 'crm-2001', tax_id: '11.222.333/0001-44' },
    });
    expect(r.status).toBe(201);
    expect(matchesSchema('AccountDto', r.body)).toEqual([]);
    expect(r.body).toMatchObject({
      name: 'Hooli',
      external_id: 'crm-2001',
      tax_id: '11.222.333/0001-44',
    });
    const [event] = await auditFor(t, r.body.id, 'account');
    expect(event).toMatchObject({
      action: 'account.created',
      actor_type: 'member',
      actor_user_id: owner.userId,
      token_id: owner.tokenId,
      channel: 'api',
      changes: {
        name: { before: null, after: 'Hooli' },
        external_id: { before: null, after: 'crm-2001' },
        tax_id: { before: null, after: '11.222.333/0001-44' },
      },
    });
  });

  it('external_id duplicate → 409 CONFLICT; tax_id duplicate (ignoring punctuation) → 409 DUPLICATE_ERROR; nothing written', async () => {
    await expectNoChange(t, async () => {
      expect(
        await call(t, 'POST', '/v1/accounts', { json: { name: 'Other', external_id: 'crm-1001' } }),
      ).toEqual(
        alreadyUsed(
          'CONFLICT',
          'external_id',
          'external_id is already used by another account in this organisation',
        ),
      );
      expect(
        await call(t, 'POST', '/v1/accounts', {
          json: { name: 'Other', tax_id: '12345678000190' },
        }),
      ).toEqual(
        alreadyUsed(
          'DUPLICATE_ERROR',
          'tax_id',
          'An account with this tax_id already exists in this organisation',
        ),
      );
      const initech = await findAccount(t, 'Initech');
      const umbrella = await findAccount(t, 'Umbrella Corp');
      const patch = await call(t, 'PATCH', `/v1/accounts/${umbrella.id}`, {
        json: { tax_id: initech.tax_id },
      });
      expect(patch.status).toBe(409);
      expect(patch.body.error.code).toBe('DUPLICATE_ERROR');
    });
    // The same keys are free in another organisation.
    const globex = await call(t, 'POST', '/v1/accounts', {
      token: 'globex_owner',
      json: { name: 'Initech (Globex)', external_id: 'crm-1002', tax_id: '12.345.678/0001-90' },
    });
    expect(globex.status).toBe(201);
  });

  it('VALIDATION_ERROR with one detail per failing field; nothing written', async () => {
    await expectNoChange(t, async () => {
      const r = await call(t, 'POST', '/v1/accounts', {
        json: { name: '', tax_id: '???', extra: 1 },
      });
      expectInvalid(
        r,
        [
          { field: 'name', message: 'must not be empty' },
          {
            field: 'tax_id',
            message: 'must contain letters and digits (spaces, ".", "/" and "-" allowed)',
          },
          { field: 'extra', message: 'is not allowed' },
        ],
        'any order',
      );
    });
  });

  it('every free-text field refuses control characters, as portal users do; nothing written', async () => {
    await expectNoChange(t, async () => {
      const created = await call(t, 'POST', '/v1/accounts', {
        json: { name: 'Bell\u0007 Corp', external_id: 'crm\n1' },
      });
      expectInvalid(created, [
        { field: 'name', message: 'must not contain control characters' },
        { field: 'external_id', message: 'must not contain control characters' },
      ]);
      const listed = await call(t, 'GET', `/v1/accounts?q=${encodeURIComponent('a\u001fb')}`);
      expectInvalid(listed, [{ field: 'q', message: 'must not contain control characters' }]);
    });
  });

  it('PATCH changes only the fields sent (null clears), audits what changed, and a no-op writes nothing', async () => {
    const umbrella = await findAccount(t, 'Umbrella Corp');
    const r = await call(t, 'PATCH', `/v1/accounts/${umbrella.id}`, {
      json: { name: 'Umbrella Corporation', external_id: null },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'Umbrella Corporation', external_id: null, tax_id: null });
    const [event] = await auditFor(t, umbrella.id, 'account');
    expect(event).toMatchObject({
      action: 'account.updated',
      changes: {
        name: { before: 'Umbrella Corp', after: 'Umbrella Corporation' },
        external_id: { before: 'crm-1002', after: null },
      },
    });
    expect(Object.keys(event.changes).sort(byText)).toEqual(['external_id', 'name']);
    await expectNoChange(t, async () => {
      expect(
        (
          await call(t, 'PATCH', `/v1/accounts/${umbrella.id}`, {
            json: { name: 'Umbrella Corporation' },
          })
        ).status,
      ).toBe(200);
    });
  });

  it('deleting an account with active portal users is FORBIDDEN; nothing changes', async () => {
    const initech = await findAccount(t, 'Initech');
    await expectNoChange(t, async () => {
      expect(await call(t, 'DELETE', `/v1/accounts/${initech.id}`)).toEqual(
        apiError(
          403,
          'FORBIDDEN',
          'The account still has 2 active portal user(s); deactivate them or move them to another account first',
          { active_portal_users: 2 },
        ),
      );
    });
  });

  it('deleting an account without active portal users detaches the others and audits the deletion', async () => {
    const created = await call(t, 'POST', '/v1/accounts', {
      json: { name: 'Soylent', tax_id: 'SOY-1' },
    });
    const pu = await call(t, 'POST', '/v1/portal-users', {
      json: {
        email: 'soy@example.com',
        name: 'Soy',
        account_id: created.body.id,
        send_invitation: false,
      },
    });
    await expectDeleted(t, '/v1/accounts', created.body.id, 'DeletedAccountDto');
    expect((await call(t, 'GET', `/v1/portal-users/${pu.body.id}`)).body).toMatchObject({
      account_id: null,
      status: 'invited',
    });
    const [event] = await auditFor(t, created.body.id, 'account');
    expect(event).toMatchObject({
      action: 'account.deleted',
      changes: {
        name: { before: 'Soylent', after: null },
        tax_id: { before: 'SOY-1', after: null },
        portal_user_ids: { before: [pu.body.id], after: [] },
      },
    });
  });

  it('deactivating the last active portal user makes the account deletable', async () => {
    const created = await call(t, 'POST', '/v1/accounts', { json: { name: 'Vandelay' } });
    const pu = await call(t, 'POST', '/v1/portal-users', {
      json: { email: 'art@example.com', name: 'Art', account_id: created.body.id },
    });
    const token = await invitationTokenFor(t, 'art@example.com');
    expect(
      (await t.request(`/v1/portal-invitations/${token}/accept`, { method: 'POST' })).status,
    ).toBe(200);
    expect((await call(t, 'DELETE', `/v1/accounts/${created.body.id}`)).status).toBe(403);
    expect((await call(t, 'POST', `/v1/portal-users/${pu.body.id}/deactivate`)).status).toBe(200);
    expect((await call(t, 'DELETE', `/v1/accounts/${created.body.id}`)).status).toBe(200);
  });

  it('pagination walks every account once, newest first', async () => {
    for (let i = 0; i < 12; i++)
      expect((await call(t, 'POST', '/v1/accounts', { json: { name: `Paged ${i}` } })).status).toBe(
        201,
      );
    await expectWalksAcme(t, '/v1/accounts', 'accounts', 5);
    expect((await walk(t, '/v1/accounts?q=paged', 4)).rows).toHaveLength(12);
  });

  it('access: accounts.delete to delete, accounts:write to change (OAuth is read-only), read with accounts:read', async () => {
    const umbrella = await findAccount(t, 'Umbrella Corporation');
    await expectNoChange(t, async () => {
      const member = await call(t, 'DELETE', `/v1/accounts/${umbrella.id}`, { token: 'member' });
      expect(member.status).toBe(403);
      expect(member.body.error).toMatchObject({
        code: 'insufficient_permission',
        details: { permission: 'accounts.delete' },
      });
      const ro = await call(t, 'PATCH', `/v1/accounts/${umbrella.id}`, {
        token: 'readonly_pat',
        json: { name: 'x' },
      });
      expect(ro.body.error).toMatchObject({
        code: 'insufficient_scope',
        details: { required_scope: 'accounts:write' },
      });
      // An OAuth token reaches the route only through /mcp (the REST API refuses its audience).
      const oauth = await callTool(t, 'oauth_reader', 'create_account', { name: 'x' });
      expect(oauth.body.error.code).toBe('insufficient_scope');
      expect(oauth.body.error.message).toMatch(/OAuth access is read-only/);
    });
    expect((await call(t, 'GET', '/v1/accounts', { token: 'readonly_pat' })).status).toBe(200);
    expect((await callTool(t, 'oauth_reader', 'list_accounts')).isError).toBe(false);
  });

  it('Ana stays attached to Initech through all of this', async () => {
    const initech = await findAccount(t, 'Initech');
    expect((await findPortalUser(t, 'ana@example.com')).account_id).toBe(initech.id);
  });
});
