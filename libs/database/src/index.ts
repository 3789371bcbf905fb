export { DatabaseModule } from './database.module.js';
export { dataSourceOptions, type DatabaseTimeouts } from './data-source-options.js';
export { EmbeddedPostgres } from './embedded-postgres.js';
export { listenForChanges, type ChangeFeed, type ChangeFeedHandlers } from './change-feed.js';
export {
  migrate,
  pendingMigrations,
  type MigrationReport,
  type MigrationSettings,
} from './migrator.js';
export { MIGRATIONS } from './migrations/index.js';
export { poolStats } from './pool-stats.js';
export {
  constraintErrorOf,
  foreignKeyConstraintOf,
  isDatabaseUnavailable,
  isUndefinedTable,
  isUniqueViolation,
  uniqueConstraintOf,
} from './pg-errors.js';
export { logSafeError } from './log-safe-error.js';
export { escapeLike, firstRowAs, purgeExpiredRows, returnedRow } from './sql-text.js';
export { organizationRow, type RowSource } from './organization-row.js';
export { camelCasedRows, type CamelCase, type CamelCased } from './camel-cased.js';
export {
  databaseTimeLeftMs,
  DatabaseDeadlineExceeded,
  DeadlinePool,
  withDatabaseDeadline,
} from './database-deadline.js';
export {
  addUnits,
  createPartitionsCovering,
  listPartitions,
  maintainPartitions,
  partitionCoverage,
  PARTITIONED_TABLES,
  unitStart,
  type Partition,
  type PartitionedTable,
  type PartitionedTableName,
  type RetentionDays,
  type RunSql,
  type TableCoverage,
  type TableMaintenance,
} from './partitions.js';
