import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations/index.js';

/**
 * The one description of the database connection, used by the app and by the migration command.
 * Entities are registered by each feature module (`TypeOrmModule.forFeature`), so the app adds
 * `autoLoadEntities`; the migration command needs none.
 */
export function dataSourceOptions(url: string, poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    extra: { max: poolSize, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000 },
    applicationName: 'platform-mcp',
  };
}
