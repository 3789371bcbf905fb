import { Pool } from 'pg';
import { describe, expect, it } from 'vitest';
import { EmbeddedPostgres } from './embedded-postgres.js';

describe('EmbeddedPostgres', () => {
  it('serves real Postgres to the pg driver on a loopback port, one winner per conditional update', async () => {
    const emb = await EmbeddedPostgres.start();
    const pool = new Pool({ connectionString: emb.url, max: 4 });
    try {
      expect(emb.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
      await pool.query(
        'CREATE TABLE t (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), state text NOT NULL)',
      );
      await pool.query(`INSERT INTO t (state) VALUES ('pending')`);
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          pool.query(`UPDATE t SET state = 'consumed' WHERE state = 'pending' RETURNING id`),
        ),
      );
      expect(results.filter((r) => r.rowCount === 1)).toHaveLength(1);
    } finally {
      await pool.end();
      await emb.stop();
    }
  });
});
