import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_PERMISSIONS } from '@app/access-vocabulary';
import { MembershipsRepository, PrincipalCache } from '@app/identity';
import type { Json } from '../support/mcp-peers.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * PRODUCT §5: a change that narrows access is in force "at once" on the replica that made it. The
 * replica caches resolved tokens; each try below makes the principal cached (two successful
 * requests), narrows it through this replica, and asks again right after the change answered.
 * Before the fix the entry was dropped only when the replica's own LISTEN connection heard the
 * notification, so on real Postgres some of these next requests still succeeded (14 of 40).
 * Other replicas (within 1 s) are test/integration/principal-cache.integration.spec.ts.
 * 40 tries a case: the race the fix closed showed in 14 of 40, so a regression of that size passes
 * all 40 with a chance of about 0.65⁴⁰ ≈ 3·10⁻⁸ (100 tries cost 40 s of the suite for nothing more).
 */
const TRIES = 40;

let s: TestServer;
let maxId: string;

beforeAll(async () => {
  s = await startTestServer();
  const res = await s.request('/v1/members', { token: 'owner' });
  const body: Json = await res.json();
  maxId = String(body.data.find((m: Json) => m.email === 'max.member@acme.test').user_id);
}, 180_000);

afterAll(async () => {
  await s?.close();
});

async function status(path: string, token: string): Promise<number> {
  const res = await s.request(path, { token });
  await res.body?.cancel();
  return res.status;
}

/** Asks twice, so the principal is cached, and checks it was allowed. */
async function cached(path: string, token: string): Promise<void> {
  expect(await status(path, token)).toBe(200);
  expect(await status(path, token)).toBe(200);
}

async function patchMax(json: Json): Promise<void> {
  const res = await s.request(`/v1/members/${maxId}`, { method: 'PATCH', token: 'owner', json });
  await res.body?.cancel();
  expect(res.status).toBe(200);
}

/**
 * Runs `TRIES` tries of `narrow` (after `widen`, which makes `path` allowed for `token` again) and
 * returns the tries whose next request was not refused with `refused` (try: status).
 */
async function lateTries(o: {
  widen: () => Promise<{ token: string }>;
  narrow: (token: string) => Promise<void>;
  path: string;
  refused: number;
}): Promise<string[]> {
  expect(s.server.app.get(PrincipalCache).active).toBe(true);
  const late: string[] = [];
  for (let i = 0; i < TRIES; i++) {
    const { token } = await o.widen();
    await cached(o.path, token);
    await o.narrow(token);
    const next = await status(o.path, token);
    if (next !== o.refused) late.push(`${i}: ${next}`);
  }
  return late;
}

async function createToken(): Promise<{ id: string; token: string }> {
  const res = await s.request('/v1/tokens', {
    method: 'POST',
    token: 'owner',
    json: { name: `narrowed ${Math.random()}`, scopes: ['accounts:read'] },
  });
  expect(res.status).toBe(201);
  const body: Json = await res.json();
  return { id: String(body.id), token: String(body.secret) };
}

describe('a narrowing change is in force on the next request of the replica that made it', () => {
  it.each([
    ['by an admin', '/v1/tokens'],
    ['by its owner', '/v1/me/tokens'],
  ])('a token revoked %s (DELETE %s/{id})', async (_who, route) => {
    let id = '';
    const late = await lateTries({
      widen: async () => {
        const created = await createToken();
        id = created.id;
        return created;
      },
      narrow: async () => {
        const res = await s.request(`${route}/${id}`, { method: 'DELETE', token: 'owner' });
        await res.body?.cancel();
        expect(res.status).toBe(200);
      },
      path: '/v1/accounts',
      refused: 401,
    });
    expect(late).toEqual([]);
  });

  it('a role changed to one without the permission (viewer → member loses audit.read)', async () => {
    const late = await lateTries({
      widen: async () => {
        await patchMax({ role: 'viewer' });
        return { token: 'member' };
      },
      narrow: () => patchMax({ role: 'member' }),
      path: '/v1/audit-events',
      refused: 403,
    });
    expect(late).toEqual([]);
  });

  it('a permission taken away (custom permissions without audit.read)', async () => {
    const late = await lateTries({
      widen: async () => {
        await patchMax({ permissions: [...ROLE_PERMISSIONS.member, 'audit.read'] });
        return { token: 'member' };
      },
      narrow: () => patchMax({ permissions: [...ROLE_PERMISSIONS.member] }),
      path: '/v1/audit-events',
      refused: 403,
    });
    await patchMax({ role: 'member' });
    expect(late).toEqual([]);
  });

  it('a membership deactivated', async () => {
    const late = await lateTries({
      widen: async () => {
        await patchMax({ status: 'active' });
        return { token: 'member' };
      },
      narrow: () => patchMax({ status: 'inactive' }),
      path: '/v1/accounts',
      refused: 403,
    });
    await patchMax({ status: 'active' });
    expect(late).toEqual([]);
  });

  it('a membership removed (by any writer of this process: here the repository itself)', async () => {
    const memberships = s.server.app.get(MembershipsRepository);
    const me = await s.request('/v1/me', { token: 'member' });
    const body: Json = await me.json();
    const organizationId = String(body.organization.id);
    const late = await lateTries({
      widen: async () => {
        if ((await memberships.find(organizationId, maxId)) === null)
          await memberships.add(organizationId, maxId, 'member', ROLE_PERMISSIONS.member);
        return { token: 'member' };
      },
      narrow: () => memberships.remove(organizationId, maxId),
      path: '/v1/accounts',
      refused: 403,
    });
    expect(late).toEqual([]);
  });
});
