import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options.js';
import { isUndefinedTable } from './pg-errors.js';

export interface MigrationReport {
  applied: string[];
  pending: string[];
}

/**
 * The migrations this build knows and the database has not run, in order. A database that was
 * never migrated (no `schema_migrations` table) has every migration pending. Reads only: never
 * runs a migration nor `synchronize`.
 */
export async function pendingMigrations(ds: DataSource): Promise<string[]> {
  const executed = await ds
    .query<Array<{ name: string }>>(`SELECT name FROM schema_migrations`)
    .catch((err: unknown) => {
      if (isUndefinedTable(err)) return [];
      throw err;
    });
  const done = new Set(executed.map((r) => r.name));
  return ds.migrations.map((m) => m.name ?? m.constructor.name).filter((n) => !done.has(n));
}

/** Facts of the deployment a migration may need to fix existing rows. */
export interface MigrationSettings {
  /** The MCP URL (the audience of OAuth tokens), as the session setting `platform.mcp_url`. */
  mcpUrl?: string;
}

/**
 * Runs, reverts or lists migrations on a fresh connection of its own: one connection, so the
 * settings given are in force in every migration's transaction (and reset before it is closed,
 * since the embedded database has one session for everyone).
 */
export async function migrate(
  url: string,
  action: 'up' | 'down' | 'status',
  settings: MigrationSettings = {},
): Promise<MigrationReport> {
  const ds = new DataSource({ ...dataSourceOptions(url, 1), logging: false });
  await ds.initialize();
  try {
    if (settings.mcpUrl !== undefined)
      await ds.query(`SELECT set_config('platform.mcp_url', $1, false)`, [settings.mcpUrl]);
    if (action === 'up') {
      const ran = await ds.runMigrations({ transaction: 'each' });
      return { applied: ran.map((m) => m.name), pending: [] };
    }
    if (action === 'down') {
      await ds.undoLastMigration({ transaction: 'each' });
    }
    const pending = new Set(await pendingMigrations(ds));
    const all = ds.migrations.map((m) => m.name ?? m.constructor.name);
    return { applied: all.filter((n) => !pending.has(n)), pending: [...pending] };
  } finally {
    if (settings.mcpUrl !== undefined) await ds.query(`RESET platform.mcp_url`).catch(() => {});
    await ds.destroy();
  }
}
