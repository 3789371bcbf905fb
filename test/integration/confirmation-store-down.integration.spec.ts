import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEEDS_REAL_POSTGRES, skipWhen } from '../support/skip.js';
import { startTestReplica, startTestServer, type TestServer } from '../support/test-server.js';
import {
  answerDelete,
  deletePortalUser,
  expectToolError,
  askedOf,
  confirmationIdOf,
  legacyRequest,
  modernToolCall,
  type WireResponse,
} from '../support/mcp-confirmation-fixtures.js';
import {
  createPortalUser,
  ledgerCount,
  ledgerStatus,
  openSql,
  portalUserStatus,
  sqlRows,
  type SqlClient,
} from '../support/confirmation-records.js';

/**
 * When the confirmation store cannot be written, asking or consuming a confirmation
 * is isError `confirmation_unavailable` and nothing runs; read tools keep answering; the process
 * survives; after recovery the same call asks normally.
 *
 * Real Postgres only (it needs ALTER DATABASE, pg_terminate_backend and roles). Two failures, both
 * undone at the end of their block:
 * - the database turns read-only under the server (what a failover onto a standby, or a provider's
 *   read-only maintenance / disk-full protection looks like): `default_transaction_read_only` is
 *   set and the server's connections are cut, so its pool reconnects into a read-only database;
 * - the confirmation table alone cannot be written: a server instance running as a least-privilege
 *   application role loses INSERT/UPDATE on `mcp_confirmations`.
 */

const adminUrl = process.env.DATABASE_URL;

function expectReadAnswered(res: WireResponse): void {
  expect(res.status).toBe(200);
  expect(res.body.error).toBeUndefined();
  expect(res.body.result.isError ?? false).toBe(false);
}

describe('confirmation store down (real Postgres)', skipWhen(NEEDS_REAL_POSTGRES), () => {
  let t: TestServer;
  let sql: SqlClient;
  let admin: SqlClient;
  let dbName: string;

  beforeAll(async () => {
    t = await startTestServer();
    sql = await openSql(t.db.url);
    admin = await openSql(adminUrl!);
    dbName = new URL(t.db.url).pathname.slice(1);
  });
  afterAll(async () => {
    await admin
      ?.query(`ALTER DATABASE ${dbName} RESET default_transaction_read_only`)
      .catch(() => undefined);
    await sql?.end();
    await admin?.end();
    await t?.close();
  });

  /** Cuts the server's connections (they reconnect with the database's current defaults). */
  async function cutServerConnections(): Promise<void> {
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = $1 AND application_name = 'platform-mcp' AND pid <> pg_backend_pid()`,
      [dbName],
    );
  }

  /**
   * Accepts a confirmation asked before the store failed, on `server`; the answer must be isError
   * confirmation_unavailable. Returns where the confirmation and the portal user stand after it.
   */
  async function acceptEarlier(
    server: TestServer,
    target: { id: string },
    earlier: ReturnType<typeof askedOf>,
  ): Promise<{ confirmation: unknown; portalUser: number }> {
    const res = await answerDelete(server, target.id, earlier);
    expectToolError(res, 'confirmation_unavailable');
    return {
      confirmation: await ledgerStatus(sql, confirmationIdOf(earlier.requestState)),
      portalUser: await portalUserStatus(t, target.id),
    };
  }

  describe('the database turns read-only under the server (failover / maintenance)', () => {
    let target: { id: string };
    let earlier: ReturnType<typeof askedOf>;
    let rowsBefore: number;

    beforeAll(async () => {
      target = await createPortalUser(t, 'Read Only Target');
      earlier = askedOf(await deletePortalUser(t, target.id));
      rowsBefore = await ledgerCount(sql);
      await admin.query(`ALTER DATABASE ${dbName} SET default_transaction_read_only = on`);
      await cutServerConnections();
    });
    afterAll(async () => {
      await admin.query(`ALTER DATABASE ${dbName} RESET default_transaction_read_only`);
      await cutServerConnections();
    });

    it('read tools, resources and the REST API keep answering', async () => {
      expectReadAnswered(
        await modernToolCall(t.url, t.tokens.owner, 'list_portal_users', { limit: 5 }),
      );
      expectReadAnswered(
        await legacyRequest(t.url, t.tokens.owner, 'tools/call', {
          name: 'get_portal_user',
          arguments: { id: target.id },
        }),
      );
      const resource = await legacyRequest(t.url, t.tokens.owner, 'resources/read', {
        uri: 'platform://organization',
      });
      expect(resource.body.result.contents).toHaveLength(1);
      expect(await portalUserStatus(t, target.id)).toBe(200);
    });

    it('asking → isError confirmation_unavailable; nothing ran, no ledger row', async () => {
      const res = await deletePortalUser(t, target.id);
      expectToolError(res, 'confirmation_unavailable');
      expect(await ledgerCount(sql)).toBe(rowsBefore);
      expect(await portalUserStatus(t, target.id)).toBe(200);
    });

    it('accepting a confirmation asked before the outage → isError confirmation_unavailable; it stays pending', async () => {
      expect(await acceptEarlier(t, target, earlier)).toEqual({
        confirmation: 'pending',
        portalUser: 200,
      });
    });

    it('the process is alive throughout, and after recovery the same call asks normally', async () => {
      const live = await fetch(`${t.url}/health/live`);
      expect(live.status).toBe(200);

      await admin.query(`ALTER DATABASE ${dbName} RESET default_transaction_read_only`);
      await cutServerConnections();

      const again = await deletePortalUser(t, target.id);
      const asked = askedOf(again);
      expect(await ledgerStatus(sql, confirmationIdOf(asked.requestState))).toBe('pending');
      // The confirmation asked before the outage was never spent: it still works, once.
      const done = await answerDelete(t, target.id, earlier);
      expect(done.body.result).toMatchObject({
        resultType: 'complete',
        structuredContent: { id: target.id, deleted: true },
      });
      expect(await portalUserStatus(t, target.id)).toBe(404);
    });
  });

  describe('the confirmation table alone cannot be written (the app role lost INSERT/UPDATE on it)', () => {
    const role = `mcp_app_${randomBytes(4).toString('hex')}`;
    let replica: TestServer;
    let target: { id: string };
    let earlier: ReturnType<typeof askedOf>;
    let rowsBefore: number;

    beforeAll(async () => {
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await sql.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
      await sql.query(
        `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`,
      );
      await sql.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
      const url = new URL(t.db.url);
      url.username = role;
      url.password = '';
      // Another replica that connects as the role whose grants the test revokes.
      replica = await startTestReplica(t, { databaseUrl: url.toString() });
      target = await createPortalUser(t, 'Revoked Table Target');
      earlier = askedOf(await deletePortalUser(replica, target.id));
      rowsBefore = await ledgerCount(sql);
      await sql.query(`REVOKE INSERT, UPDATE ON mcp_confirmations FROM ${role}`);
    });
    afterAll(async () => {
      await replica?.close();
      await sql
        .query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${role}`)
        .catch(() => undefined);
      await sql
        .query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM ${role}`)
        .catch(() => undefined);
      await sql.query(`REVOKE ALL ON SCHEMA public FROM ${role}`).catch(() => undefined);
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
    });

    it('asking → isError confirmation_unavailable; nothing ran, no ledger row; the refusal is in the call history', async () => {
      const res = await deletePortalUser(replica, target.id);
      expectToolError(res, 'confirmation_unavailable');
      expect(await ledgerCount(sql)).toBe(rowsBefore);
      expect(await portalUserStatus(t, target.id)).toBe(200);
      const [history] = await sqlRows(
        sql,
        `SELECT count(*)::int AS n FROM mcp_tool_calls WHERE tool = 'delete_portal_user' AND status = 'confirmation_unavailable'`,
      );
      expect(history.n).toBeGreaterThanOrEqual(1);
    });

    it('accepting → isError confirmation_unavailable; the confirmation stays pending; nothing deleted', async () => {
      expect(await acceptEarlier(replica, target, earlier)).toEqual({
        confirmation: 'pending',
        portalUser: 200,
      });
    });

    it('read tools and non-destructive writes keep working; the process is alive', async () => {
      expectReadAnswered(
        await modernToolCall(replica.url, t.tokens.owner, 'get_portal_user', { id: target.id }),
      );
      expectReadAnswered(
        await modernToolCall(replica.url, t.tokens.owner, 'update_portal_user', {
          id: target.id,
          name: 'Revoked Table Target (renamed)',
        }),
      );
      expect((await fetch(`${replica.url}/health/live`)).status).toBe(200);
      expect((await fetch(`${replica.url}/health/ready`)).status).toBe(200);
    });

    it('after the grant is restored, the same call asks normally and the earlier confirmation still works once', async () => {
      await sql.query(`GRANT INSERT, UPDATE ON mcp_confirmations TO ${role}`);
      const asked = askedOf(await deletePortalUser(replica, target.id));
      expect(asked.request.params.message).toMatch(
        /^Delete portal user Revoked Table Target \(renamed\)/,
      );
      const done = await answerDelete(replica, target.id, earlier);
      expect(done.body.result).toMatchObject({
        resultType: 'complete',
        structuredContent: { deleted: true },
      });
      expect(await portalUserStatus(t, target.id)).toBe(404);
    });
  });
});
