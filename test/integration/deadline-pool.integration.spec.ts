import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadlinePool, isDatabaseUnavailable } from '@app/database';
import { createTestDatabase, type TestDatabase } from '@app/testing';
import { NEEDS_REAL_POSTGRES, skipWhen } from '../support/skip.js';

/**
 * A pool connection is prepared (e.g. made to LISTEN) before its first checkout is handed over.
 * Meanwhile nobody else listens for the connection's `error` event, so a connection cut during
 * that step must fail the checkout (destroyed, the error recognised as the database's), not crash
 * the process with an uncaught exception when the dead connection reports it (seen in CI when the
 * database-deadline test cut every connection).
 */
describe('DeadlinePool checkout steps (real Postgres)', skipWhen(NEEDS_REAL_POSTGRES), () => {
  let db: TestDatabase;
  let admin: Client;

  beforeAll(async () => {
    db = await createTestDatabase({ migrate: false });
    admin = new Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await db?.dispose();
  });

  it('a connection cut while its step runs fails that checkout; the next one works', async () => {
    const pool = new DeadlinePool({ connectionString: db.url, max: 2 });
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown): void => {
      uncaught.push(err);
    };
    process.on('uncaughtException', onUncaught);
    let cut = true;
    pool.onFirstCheckout(async (client) => {
      if (!cut) return;
      cut = false;
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Cut from elsewhere while this step still waits on the connection.
      const sleeping = client.query('SELECT pg_sleep(5)');
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
      await sleeping;
    });
    try {
      const failed = await pool.connect().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failed).toBeInstanceOf(Error);
      expect(isDatabaseUnavailable(failed)).toBe(true);
      // The dead connection reports its end a moment later: that must go nowhere.
      await new Promise((r) => setTimeout(r, 500));
      expect(uncaught).toEqual([]);

      const client = await pool.connect();
      try {
        expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      } finally {
        client.release();
      }
    } finally {
      process.off('uncaughtException', onUncaught);
      await pool.end();
    }
  });
});
