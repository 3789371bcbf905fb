import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@app/testing';
import { MIGRATIONS, migrate } from '@app/database';

describe('migrations', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => db.dispose());

  async function tables(): Promise<string[]> {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      const r = await c.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'schema_migrations' ORDER BY 1`,
      );
      return r.rows.map((x) => x.table_name);
    } finally {
      await c.end();
    }
  }

  it('apply every migration, revert each one exactly, and apply again', async () => {
    const up = await migrate(db.url, 'up');
    expect(up.applied).toHaveLength(MIGRATIONS.length);
    const full = await tables();
    expect(full).toEqual(
      expect.arrayContaining(['organizations', 'users', 'memberships', 'api_tokens']),
    );

    for (let i = MIGRATIONS.length - 1; i >= 0; i--) {
      const report = await migrate(db.url, 'down');
      expect(report.applied).toHaveLength(i);
    }
    expect(await tables()).toEqual([]);

    await migrate(db.url, 'up');
    expect(await tables()).toEqual(full);
    expect((await migrate(db.url, 'status')).pending).toEqual([]);
  });
});
