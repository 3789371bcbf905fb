import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options.js';

export interface MigrationReport {
  applied: string[];
  pending: string[];
}

/** Runs, reverts or lists migrations on a fresh connection of its own. */
export async function migrate(
  url: string,
  action: 'up' | 'down' | 'status',
): Promise<MigrationReport> {
  const ds = new DataSource({ ...dataSourceOptions(url, 2), logging: false });
  await ds.initialize();
  try {
    if (action === 'up') {
      const ran = await ds.runMigrations({ transaction: 'each' });
      return { applied: ran.map((m) => m.name), pending: [] };
    }
    if (action === 'down') {
      await ds.undoLastMigration({ transaction: 'each' });
    }
    const executed = await ds
      .query<Array<{ name: string }>>(`SELECT name FROM schema_migrations ORDER BY id`)
      .catch(() => []);
    const done = new Set(executed.map((r) => r.name));
    const all = ds.migrations.map((m) => m.name ?? m.constructor.name);
    return { applied: all.filter((n) => done.has(n)), pending: all.filter((n) => !done.has(n)) };
  } finally {
    await ds.destroy();
  }
}
