import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { EmbeddedPostgres, migrate } from '@app/database';

export interface TestDatabase {
  url: string;
  /** Drops the database (real Postgres) or stops the embedded one. */
  dispose(): Promise<void>;
}

/**
 * A database of this test's own, with every migration applied: a fresh database on the Postgres
 * named by `DATABASE_URL` when it is set, else an in-memory embedded Postgres.
 */
export async function createTestDatabase(
  options: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  let db: TestDatabase;
  if (adminUrl === undefined || adminUrl === '') {
    const emb = await EmbeddedPostgres.start();
    db = { url: emb.url, dispose: () => emb.stop() };
  } else {
    const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    db = {
      url: url.toString(),
      dispose: async () => {
        const c = new Client({ connectionString: adminUrl });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  }
  if (options.migrate !== false) await migrate(db.url, 'up');
  return db;
}
