import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_SCOPES } from '@app/access-vocabulary';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { PEERS, rpcErrorOf, textJsonOf, type Json } from '../support/mcp-peers.js';
import {
  legacyRequest,
  modernRequest,
  type WireResponse,
} from '../support/mcp-confirmation-fixtures.js';
import {
  openSql,
  portalUserIdByEmail,
  sqlRows,
  type SqlClient,
} from '../support/confirmation-records.js';

/**
 * The four authorization outcomes (who can fix it: client, person, admin, nobody) with the demo tokens, on
 * tools/call (isError with the envelope) in both eras and on resources/read and prompts/get
 * (JSON-RPC -31403 with the envelope as `data`); each refusal changes nothing (no audit event,
 * no record, no confirmation asked). Then a token revoked and a membership deactivated mid-run.
 */

type DemoToken = keyof TestServer['tokens'];
type Era = '2026-07-28' | '2025-11-25';
const ERAS: readonly Era[] = ['2026-07-28', '2025-11-25'];

let t: TestServer;
let sql: SqlClient;
let brunoId: string;
let anaId: string;

beforeAll(async () => {
  t = await startTestServer();
  sql = await openSql(t.db.url);
  brunoId = await portalUserIdByEmail(t, 'bruno@example.com');
  anaId = await portalUserIdByEmail(t, 'ana@example.com');
});
afterAll(async () => {
  await sql?.end();
  await t?.close();
});

/** What a refusal must leave untouched, counted straight from the tables. */
async function snapshot(): Promise<Record<string, number>> {
  const [row] = await sqlRows(
    sql,
    `SELECT (SELECT count(*) FROM audit_events)::int AS audit_events,
            (SELECT count(*) FROM portal_users)::int AS portal_users,
            (SELECT count(*) FROM accounts)::int AS accounts,
            (SELECT count(*) FROM mcp_confirmations)::int AS confirmations,
            (SELECT count(*) FROM mail_outbox)::int AS mail`,
  );
  return row;
}

function call(
  era: Era,
  token: string,
  method: string,
  params: Record<string, unknown>,
): Promise<WireResponse> {
  const secret = (t.tokens as Record<string, string>)[token] ?? token;
  return era === '2026-07-28'
    ? modernRequest(t.url, secret, method, params) // declares form elicitation
    : legacyRequest(t.url, secret, method, params, era);
}

/** The same scopes in any order (a token lists them as stored). */
function sameMembers(values: readonly string[]): unknown {
  return expect.toSatisfy(
    (actual: unknown) =>
      Array.isArray(actual) &&
      actual.length === values.length &&
      values.every((v) => actual.includes(v)),
    `the scopes ${values.join(', ')}`,
  );
}

interface Refusal {
  token: DemoToken;
  code: string;
  message: RegExp;
  details: Record<string, unknown>;
}

const FORMER: Refusal = {
  token: 'former_member',
  code: 'key_owner_not_member',
  message: /frank\.former@acme\.test.*not a member.*Authorize the client again/,
  details: { organization: 'acme', user: 'frank.former@acme.test' },
};
const INACTIVE: Refusal = {
  token: 'inactive_member',
  code: 'membership_inactive',
  message: /membership of ingrid\.inactive@acme\.test.*inactive.*reactivate/,
  details: { organization: 'acme', user: 'ingrid.inactive@acme.test' },
};
const READONLY: Refusal = {
  token: 'readonly_pat',
  code: 'insufficient_scope',
  message: /needs portal_users:write/,
  details: {
    required_scope: 'portal_users:write',
    token_kind: 'personal',
    token_scopes: sameMembers(READ_SCOPES),
  },
};
const OAUTH: Refusal = {
  token: 'oauth_reader',
  code: 'insufficient_scope',
  message: /needs portal_users:write\. OAuth access is read-only today; use a personal token/,
  details: {
    required_scope: 'portal_users:write',
    token_kind: 'oauth',
    token_scopes: sameMembers(READ_SCOPES),
    oauth_read_only: true,
    grantable_scopes: sameMembers(READ_SCOPES),
  },
};
const MEMBER: Refusal = {
  token: 'member',
  code: 'insufficient_permission',
  message: /max\.member@acme\.test does not hold the permission portal_users\.delete/,
  details: { permission: 'portal_users.delete', organization: 'acme' },
};

function expectEnvelope(envelope: Json, refusal: Refusal): void {
  expect(envelope).toEqual({
    error: { code: refusal.code, message: expect.any(String), details: refusal.details },
  });
  expect(envelope.error.message).toMatch(refusal.message);
}

function expectToolRefusal(res: WireResponse, era: Era, refusal: Refusal): void {
  expect(res.status).toBe(200);
  expect(res.body).not.toHaveProperty('error');
  const result: Json = res.body.result;
  expect(result.isError).toBe(true);
  expect(result.resultType).toBe(era === '2026-07-28' ? 'complete' : undefined);
  expect(result).not.toHaveProperty('inputRequests');
  expect(result).not.toHaveProperty('requestState');
  const envelope = textJsonOf(result);
  expectEnvelope(envelope, refusal);
  expect(result).not.toHaveProperty('structuredContent');
}

async function refusalsInHistory(tool: string, code: string): Promise<number> {
  const [row] = await sqlRows(
    sql,
    `SELECT count(*)::int AS n FROM mcp_tool_calls WHERE tool = $1 AND status = $2 AND is_error`,
    [tool, code],
  );
  return row.n;
}

describe.each(ERAS)('tools/call on %s', (era) => {
  // Every token reaches the same destructive tool: the check order decides which refusal wins
  // (inactive_member and former_member lack portal_users.delete too), and no question is asked.
  it.each([FORMER, INACTIVE, READONLY, OAUTH, MEMBER])(
    'delete_portal_user with $token → $code; nothing asked, nothing deleted',
    async (refusal) => {
      const before = await snapshot();
      const inHistory = await refusalsInHistory('delete_portal_user', refusal.code);
      const res = await call(era, refusal.token, 'tools/call', {
        name: 'delete_portal_user',
        arguments: { id: brunoId },
      });
      expectToolRefusal(res, era, refusal);
      expect(await snapshot()).toEqual(before);
      expect(await refusalsInHistory('delete_portal_user', refusal.code)).toBe(inHistory + 1);
      const bruno = await t.request(`/v1/portal-users/${brunoId}`, { token: 'owner' });
      expect(bruno.status).toBe(200);
    },
  );

  it.each([FORMER, INACTIVE, READONLY, OAUTH])(
    'create_portal_user with $token → $code; nothing created, no mail, no audit event',
    async (refusal) => {
      const before = await snapshot();
      const email = `refused.${refusal.token}.${era}@example.com`;
      const res = await call(era, refusal.token, 'tools/call', {
        name: 'create_portal_user',
        arguments: { email, name: 'Should Not Exist' },
      });
      expectToolRefusal(res, era, refusal);
      expect(await snapshot()).toEqual(before);
      const found: Json = await (
        await t.request(`/v1/portal-users?q=${encodeURIComponent(email)}`, { token: 'owner' })
      ).json();
      expect(found.data).toEqual([]);
    },
  );

  it('a read the token does reach is answered (the refusals above are not blanket)', async () => {
    for (const token of ['readonly_pat', 'oauth_reader', 'member'] as const) {
      const res = await call(era, token, 'tools/call', {
        name: 'get_portal_user',
        arguments: { id: anaId },
      });
      expect({ token, isError: res.body.result?.isError ?? false }).toEqual({
        token,
        isError: false,
      });
    }
  });
});

function prompt(name: string, args?: Record<string, string>) {
  return {
    method: 'prompts/get',
    params: args === undefined ? { name } : { name, arguments: args },
  };
}

describe.each(ERAS)(
  'resources/read and prompts/get on %s: JSON-RPC -31403 with the envelope as data',
  (era) => {
    const onboard = prompt('onboard_portal_user', { email: 'x.y@example.com', name: 'X Y' });
    const review = prompt('review_recent_activity');
    const AUDIT_PERMISSION: Refusal = {
      ...MEMBER,
      message: /max\.member@acme\.test does not hold the permission audit\.read/,
      details: { permission: 'audit.read', organization: 'acme' },
    };

    const organization = {
      method: 'resources/read',
      params: () => ({ uri: 'platform://organization' }),
    };
    const portalUser = {
      method: 'resources/read',
      params: () => ({ uri: `platform://portal-users/${anaId}` }),
    };
    const onboarding = { ...onboard, params: () => onboard.params };
    const reviewing = { ...review, params: () => review.params };
    const cases = [
      { what: 'platform://organization', refusal: FORMER, request: organization },
      { what: 'platform://portal-users/{id}', refusal: FORMER, request: portalUser },
      { what: 'review_recent_activity', refusal: FORMER, request: reviewing },
      { what: 'platform://organization', refusal: INACTIVE, request: organization },
      { what: 'platform://portal-users/{id}', refusal: INACTIVE, request: portalUser },
      { what: 'onboard_portal_user', refusal: INACTIVE, request: onboarding },
      { what: 'onboard_portal_user', refusal: READONLY, request: onboarding },
      { what: 'onboard_portal_user', refusal: OAUTH, request: onboarding },
      { what: 'review_recent_activity', refusal: AUDIT_PERMISSION, request: reviewing },
    ];

    it.each(cases)('$what with $refusal.token → $refusal.code', async ({ refusal, request }) => {
      const before = await snapshot();
      const res = await call(era, refusal.token, request.method, request.params());
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('result');
      expect(res.body.error.code).toBe(-31403);
      expectEnvelope(res.body.error.data, refusal);
      expect(res.body.error.message).toBe(res.body.error.data.error.message);
      expect(await snapshot()).toEqual(before);
    });
  },
);

describe('access changes mid-run take effect on the next MCP call', () => {
  const V2 = PEERS.find((p) => p.label === 'v2 client pinned to 2026-07-28')!;
  const V1 = PEERS.find((p) => p.label.startsWith('v1 client'))!;

  it.each([V2, V1])(
    'a revoked personal token ($label): the next call is 401 invalid_token',
    async (spec) => {
      const created = await t.request('/v1/tokens', {
        method: 'POST',
        token: 'owner',
        json: { name: `mid-run ${spec.protocolVersion}`, scopes: ['portal_users:write'] },
      });
      expect(created.status).toBe(201);
      const token: Json = await created.json();

      const peer = await spec.connect(`${t.url}/mcp`, token.secret);
      try {
        const ok: Json = await peer.callTool('get_portal_user', { id: anaId });
        expect(ok.isError ?? false).toBe(false);

        const revoked = await t.request(`/v1/tokens/${token.id}`, {
          method: 'DELETE',
          token: 'owner',
        });
        expect(revoked.status).toBe(200);
        expect(await revoked.json()).toMatchObject({ id: token.id, status: 'revoked' });

        const before = await snapshot();
        const refused: unknown = await peer
          .callTool('create_portal_user', {
            email: `after.revoke.${spec.protocolVersion}@example.com`,
            name: 'Too Late',
          })
          .then(
            () => null,
            (error: unknown) => error,
          );
        expect(refused).toBeInstanceOf(Error);
        const last = peer.exchanges.at(-1)!;
        expect(last.status).toBe(401);
        expect(last.responseHeaders.get('www-authenticate')).toMatch(
          /^Bearer error="invalid_token", resource_metadata="[^"]+", scope="[^"]+"$/,
        );
        expect(last.responseBody).toMatchObject({ error: { code: 'INVALID_TOKEN' } });
        expect(await snapshot()).toEqual(before);
      } finally {
        await peer.close().catch(() => undefined);
      }

      // Raw, both eras: refused before JSON-RPC is read.
      for (const era of ERAS) {
        const res = await call(era, token.secret, 'tools/call', {
          name: 'get_portal_user',
          arguments: { id: anaId },
        });
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ error: { code: 'INVALID_TOKEN' } });
      }
    },
  );

  it.each([V2, V1])(
    'a membership deactivated ($label): the next call is membership_inactive; reactivated, it works again',
    async (spec) => {
      const members: Json = await (
        await t.request('/v1/members?limit=100', { token: 'owner' })
      ).json();
      const max: Json = members.data.find((m: Json) => m.email === 'max.member@acme.test');
      expect(max).toMatchObject({ status: 'active' });
      const setStatus = async (status: 'active' | 'inactive') => {
        const res = await t.request(`/v1/members/${max.user_id}`, {
          method: 'PATCH',
          token: 'owner',
          json: { status },
        });
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ user_id: max.user_id, status });
      };

      const peer = await spec.connect(`${t.url}/mcp`, t.tokens.member);
      try {
        const ok: Json = await peer.callTool('get_portal_user', { id: anaId });
        expect(ok.isError ?? false).toBe(false);

        await setStatus('inactive');
        const before = await snapshot();
        const email = `after.deactivation.${spec.protocolVersion}@example.com`;
        for (const [name, args] of [
          ['get_portal_user', { id: anaId }],
          ['create_portal_user', { email, name: 'Too Late' }],
        ] as const) {
          const refused: Json = await peer.callTool(name, args);
          expect(refused.isError).toBe(true);
          expect(textJsonOf(refused)).toMatchObject({
            error: {
              code: 'membership_inactive',
              details: { organization: 'acme', user: 'max.member@acme.test' },
            },
          });
        }
        const resource = await rpcErrorOf(peer.readResource('platform://organization'));
        expect(resource.code).toBe(-31403);
        expect(resource.data).toMatchObject({ error: { code: 'membership_inactive' } });
        expect(await snapshot()).toEqual(before);

        await setStatus('active');
        const again: Json = await peer.callTool('get_portal_user', { id: anaId });
        expect(again.isError ?? false).toBe(false);
      } finally {
        await setStatus('active');
        await peer.close();
      }
    },
  );
});
