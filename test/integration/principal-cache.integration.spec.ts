import { Client, type PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { DeadlinePool } from '@app/database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrincipalCache } from '@app/identity';
import { ConfirmationPolicyCache } from '@app/confirmation-policies';
import type { Json } from '../support/mcp-peers.js';
import { NEEDS_REAL_POSTGRES, skipWhen } from '../support/skip.js';
import { startTestReplica, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Two replicas on one database, each caching resolved tokens. PRODUCT's bound: revocation,
 * deactivation, removal and role changes made on one replica take effect on every other within
 * 1 second. Each test makes the change on A after B has the principal cached, then polls B until
 * it answers the new way, failing if that takes longer than the bound.
 */
const BOUND_MS = 1_000;

let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  a = await startTestServer();
  b = await startTestReplica(a);
}, 180_000);

afterAll(async () => {
  try {
    await b?.close();
  } finally {
    await a?.close();
  }
});

/** Each change is made while B has the principal cached (its cache is on). */
function bCaches(): void {
  expect(b.server.app.get(PrincipalCache).active).toBe(true);
}

async function status(t: TestServer, path: string, token: string): Promise<number> {
  const res = await t.request(path, { token });
  await res.body?.cancel();
  return res.status;
}

/** Polls until `path` answers `expected` on `t`; returns how long that took after `since`. */
async function until(
  t: TestServer,
  path: string,
  token: string,
  expected: number,
  since: number,
): Promise<number> {
  const deadline = since + BOUND_MS * 3;
  for (;;) {
    const got = await status(t, path, token);
    const elapsed = performance.now() - since;
    if (got === expected) return elapsed;
    if (performance.now() > deadline)
      throw new Error(`still ${got} after ${Math.round(elapsed)} ms (expected ${expected})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function memberId(email: string): Promise<string> {
  const res = await a.request('/v1/members', { token: 'owner' });
  const body: Json = await res.json();
  const found: Json = body.data.find((m: Json) => m.email === email);
  if (found === undefined) throw new Error(`no member ${email}`);
  return String(found.user_id);
}

describe('the principal cache across replicas', () => {
  it('is on for both replicas (the change notifications arrive)', () => {
    expect(a.server.app.get(PrincipalCache).active).toBe(true);
    expect(b.server.app.get(PrincipalCache).active).toBe(true);
  });

  it('a token revoked on A is refused by B within the bound', async () => {
    const created = await a.request('/v1/tokens', {
      method: 'POST',
      token: 'owner',
      json: { name: 'revoked across replicas', scopes: ['accounts:read'] },
    });
    expect(created.status).toBe(201);
    const body: Json = await created.json();
    const id = String(body.id);
    const secret = String(body.secret);
    expect(await status(b, '/v1/accounts', secret)).toBe(200);
    expect(await status(b, '/v1/accounts', secret)).toBe(200);
    bCaches();

    const revoked = await a.request(`/v1/tokens/${id}`, { method: 'DELETE', token: 'owner' });
    const at = performance.now();
    expect(revoked.status).toBeLessThan(300);
    expect(await until(b, '/v1/accounts', secret, 401, at)).toBeLessThanOrEqual(BOUND_MS);
    // …and on A itself.
    expect(await status(a, '/v1/accounts', secret)).toBe(401);
  });

  it('a role changed on A changes what B allows within the bound', async () => {
    const max = await memberId('max.member@acme.test');
    // A member holds no audit.read; a viewer does.
    expect(await status(b, '/v1/audit-events', 'member')).toBe(403);
    bCaches();
    const changed = await a.request(`/v1/members/${max}`, {
      method: 'PATCH',
      token: 'owner',
      json: { role: 'viewer' },
    });
    const at = performance.now();
    expect(changed.status).toBe(200);
    expect(await until(b, '/v1/audit-events', 'member', 200, at)).toBeLessThanOrEqual(BOUND_MS);
  });

  it('a membership deactivated on A is refused by B within the bound', async () => {
    const max = await memberId('max.member@acme.test');
    expect(await status(b, '/v1/accounts', 'member')).toBe(200);
    bCaches();
    const changed = await a.request(`/v1/members/${max}`, {
      method: 'PATCH',
      token: 'owner',
      json: { status: 'inactive' },
    });
    const at = performance.now();
    expect(changed.status).toBe(200);
    expect(await until(b, '/v1/accounts', 'member', 403, at)).toBeLessThanOrEqual(BOUND_MS);
  });
});

describe('the LISTEN connection is lost (real Postgres)', skipWhen(NEEDS_REAL_POSTGRES), () => {
  it('drops what B cached, then caches again once B listens again', async () => {
    const cache = b.server.app.get(PrincipalCache);
    expect(await status(b, '/v1/accounts', 'readonly_pat')).toBe(200);

    const admin = new Client({ connectionString: a.db.url });
    await admin.connect();
    try {
      // A change whose notification nobody receives (triggers do not fire for a replica role):
      // B keeps answering from its cache, which shows the entry is there.
      await admin.query(`SET session_replication_role = replica`);
      await admin.query(
        `UPDATE api_tokens SET scopes = ARRAY['portal_users:read'] WHERE name = 'Owner read-only'`,
      );
      await admin.query(`SET session_replication_role = origin`);
      expect(await status(b, '/v1/accounts', 'readonly_pat')).toBe(200);

      // Both replicas' listening connections are cut: each drops its cache, so B reads the
      // membership from the database again.
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = 'platform-mcp-listen' AND datname = current_database()`,
      );
      const at = performance.now();
      expect(await until(b, '/v1/accounts', 'readonly_pat', 403, at)).toBeLessThanOrEqual(BOUND_MS);

      // It reconnects by itself (backoff from 250 ms) and caches again.
      const deadline = performance.now() + 10_000;
      while (!cache.active && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(cache.active).toBe(true);
      // The policy cache listens on the same connection (one per replica, whatever the channels).
      expect(b.server.app.get(ConfirmationPolicyCache).active).toBe(true);
      const listeners = await admin.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity
          WHERE application_name = 'platform-mcp-listen' AND datname = current_database()`,
      );
      expect(Number(listeners.rows[0]?.n)).toBe(2);
    } finally {
      await admin.end();
    }
  });
});

describe('pool connections listen too (real Postgres)', skipWhen(NEEDS_REAL_POSTGRES), () => {
  it('each is handed over idle, already listening on every channel', async () => {
    const ds = b.server.app.get(DataSource);
    const pool = 'master' in ds.driver ? ds.driver.master : undefined;
    expect(pool).toBeInstanceOf(DeadlinePool);
    if (!(pool instanceof DeadlinePool)) return;
    // Every connection the pool holds, fresh ones included: more checkouts at once than it has.
    const held: PoolClient[] = [];
    try {
      for (let i = 0; i < pool.options.max; i++) {
        const client = await pool.connect();
        held.push(client);
        // Nothing queued on it for the caller to wait behind (pg 9 refuses queued statements).
        expect(Reflect.get(client, '_activeQuery') ?? null).toBeNull();
        expect(Reflect.get(client, '_queryQueue')).toHaveLength(0);
        const channels = await client.query<{ channel: string }>(
          `SELECT pg_listening_channels() AS channel ORDER BY 1`,
        );
        expect(channels.rows.map((r) => r.channel)).toEqual([
          'confirmation_policy_changed',
          'principal_changed',
        ]);
      }
    } finally {
      for (const client of held) client.release();
    }
  });
});
