// How a budget's shared limiter is kept in each store, as pure functions of the store's client:
// `RateLimitService` builds its limiters from them, and so does the official-SDK baseline of the
// benchmark (`bench/servers/sdk.mjs`, from `dist/`), so the two do the same rate-limiting work.
// This module imports nothing at run time; keep it so (the baseline loads none of the app).
import type { Redis } from 'ioredis';
import type { RateLimiterPostgres, RateLimiterRedis } from 'rate-limiter-flexible';

type PostgresOptions = ConstructorParameters<typeof RateLimiterPostgres>[0];
type RedisOptions = ConstructorParameters<typeof RateLimiterRedis>[0];

/** What the Postgres limiter queries through: a `pg` pool, or anything with its `query`. */
export interface PgQueryable {
  query(q: { text: string; values?: unknown[] }): Promise<unknown>;
}

/**
 * Once a key has spent its budget, it is refused from memory for a while (at most 10 s) instead of
 * asking the store again on every request of a flood.
 */
function blocking(points: number, duration: number) {
  return {
    points,
    duration,
    inMemoryBlockOnConsumed: points,
    inMemoryBlockDuration: Math.min(10, duration),
  };
}

/**
 * In Postgres: the `rate_limits` table the migrations create, through a `pg` pool, with unnamed
 * statements only: the embedded Postgres shares one session across connections, so a named
 * prepared statement made on one pool connection collides on the next.
 */
export function postgresLimiterOptions(
  pool: PgQueryable,
  keyPrefix: string,
  points: number,
  duration: number,
): PostgresOptions {
  const storeClient: PgQueryable = {
    query: (q) => pool.query({ text: q.text, values: q.values }),
  };
  return {
    storeClient,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix,
    ...blocking(points, duration),
  };
}

/** In Redis: refused at once while Redis is not ready (the caller answers from memory). */
export function redisLimiterOptions(
  storeClient: Redis,
  keyPrefix: string,
  points: number,
  duration: number,
): RedisOptions {
  return { storeClient, rejectIfRedisNotReady: true, keyPrefix, ...blocking(points, duration) };
}
