import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

describe('EmbeddedPostgres on a data directory', () => {
  it('creates a new directory (initdb in a process of its own), then serves it with the embedded settings; a restart finds the data', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'embedded-pg-'));
    try {
      const first = await EmbeddedPostgres.start({ dataDir: dir });
      const pool = new Pool({ connectionString: first.url, max: 1 });
      try {
        const shared = await pool.query<{ shared_buffers: string }>('SHOW shared_buffers');
        expect(shared.rows[0]?.shared_buffers).toBe('8MB');
        const max = await pool.query<{ max_connections: string }>('SHOW max_connections');
        expect(max.rows[0]?.max_connections).toBe('8');
        await pool.query('CREATE TABLE kept (n int)');
        await pool.query('INSERT INTO kept VALUES (42)');
      } finally {
        await pool.end();
        await first.stop();
      }
      const second = await EmbeddedPostgres.start({ dataDir: dir });
      const again = new Pool({ connectionString: second.url, max: 1 });
      try {
        expect((await again.query<{ n: number }>('SELECT n FROM kept')).rows).toEqual([{ n: 42 }]);
      } finally {
        await again.end();
        await second.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
