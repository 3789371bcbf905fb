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
  const driver = ds.driver as unknown as { master?: PgPoolLike };
  const pool = driver.master;
  if (pool === undefined) return undefined;
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}
