import type { DataSource } from 'typeorm';

interface PgPoolLike {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** Reads the `pg` pool counters behind a TypeORM data source (for the pool gauges). */
export function poolStats(
  ds: DataSource,
): { total: number; idle: number; waiting: number } | undefined {
  // The Postgres driver keeps its `pg` pool as `master`; other drivers have none.
  const pool = 'master' in ds.driver ? ds.driver.master : undefined;
  if (!isPgPoolLike(pool)) return undefined;
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

function isPgPoolLike(value: unknown): value is PgPoolLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    'totalCount' in value &&
    typeof value.totalCount === 'number' &&
    'idleCount' in value &&
    typeof value.idleCount === 'number' &&
    'waitingCount' in value &&
    typeof value.waitingCount === 'number'
  );
}
