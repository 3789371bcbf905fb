import 'reflect-metadata';
import { ConfigError, loadDatabaseConfig } from '@app/config';
import { EmbeddedPostgres, migrate } from '@app/database';
import { join } from 'node:path';

/**
 * `migrate.js up|down|status`: the migration command for jobs (and for the embedded data dir).
 * Reads only DATABASE_URL (and DATA_DIR for the embedded database) and the server's address (the
 * MCP URL a migration may bind OAuth tokens to): a migration job needs no application secrets.
 */
async function run(): Promise<void> {
  const action = process.argv[2] ?? 'status';
  if (action !== 'up' && action !== 'down' && action !== 'status') {
    process.stderr.write('usage: migrate.js up|down|status\n');
    process.exit(2);
  }
  let config;
  try {
    config = loadDatabaseConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const embedded =
    config.databaseUrl === undefined
      ? await EmbeddedPostgres.start({ dataDir: join(config.dataDir, 'pgdata') })
      : undefined;
  try {
    const report = await migrate(config.databaseUrl ?? embedded!.url, action, config);
    process.stdout.write(`${JSON.stringify({ action, ...report })}\n`);
  } finally {
    await embedded?.stop();
  }
}

await run();
