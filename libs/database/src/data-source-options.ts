import type { DataSourceOptions } from 'typeorm';
import { deadlineAwarePg } from './database-deadline.js';
import { MIGRATIONS } from './migrations/index.js';

/**
 * How long the database may take before a request gives up on it (milliseconds). Without them a
 * frozen or unreachable database holds every request open indefinitely.
 */
export interface DatabaseTimeouts {
  /** Server side `statement_timeout`, and the client's read timeout (plus a margin) per query. */
  statementTimeoutMs: number;
  /** Server side `idle_in_transaction_session_timeout`. */
  idleInTransactionTimeoutMs: number;
  /** Waiting for a pool connection, and opening one. */
  connectTimeoutMs: number;
  /** TCP keepalive: first probe after this much idle time. */
  keepAliveInitialDelayMs: number;
}

/** A request that reaches a frozen database gives up after this much more than the statement timeout. */
const CLIENT_READ_MARGIN_MS = 1_000;

/**
 * The one description of the database connection, used by the app and by the migration command.
 * No entities: repositories run SQL and map rows themselves (docs/architecture.md, rule 4). With
 * `timeouts`, statements and
 * connections are bounded (the app); without, only connecting is (migrations may run long DDL).
 */
export function dataSourceOptions(
  url: string,
  poolSize = 10,
  timeouts?: DatabaseTimeouts,
): DataSourceOptions {
  const bounded =
    timeouts === undefined
      ? { connectionTimeoutMillis: 5_000 }
      : {
          connectionTimeoutMillis: timeouts.connectTimeoutMs,
          statement_timeout: timeouts.statementTimeoutMs,
          idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
          // The server cannot enforce statement_timeout when it is not answering at all.
          query_timeout: timeouts.statementTimeoutMs + CLIENT_READ_MARGIN_MS,
          keepAlive: true,
          keepAliveInitialDelayMillis: timeouts.keepAliveInitialDelayMs,
        };
  return {
    type: 'postgres',
    url,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    // The app's waits are bounded by each request's deadline (withDatabaseDeadline).
    ...(timeouts === undefined ? {} : { driver: deadlineAwarePg }),
    extra: { max: poolSize, idleTimeoutMillis: 30_000, ...bounded },
    applicationName: 'platform-mcp',
  };
}
