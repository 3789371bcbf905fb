import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { MetricsService, type RateLimitBudget } from '@app/metrics';
import {
  postgresLimiterOptions,
  redisLimiterOptions,
  type PgQueryable,
} from './limiter-options.js';
import { redactRedisUrl } from './redis-url.js';

function isPgQueryable(value: unknown): value is PgQueryable {
  return (
    typeof value === 'object' &&
    value !== null &&
    'query' in value &&
    typeof value.query === 'function'
  );
}

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Where the budgets live: shared by every replica (Redis, Postgres) or this process's memory. */
export type RateLimitStore = 'redis' | 'postgres' | 'memory';

/** A budget: the shared limiter, and the per-replica one that answers while the shared store cannot. */
interface Budget {
  readonly name: RateLimitBudget;
  readonly shared: RateLimiterAbstract;
  readonly insurance: RateLimiterMemory | undefined;
}

/**
 * The slower quotas, each a number of events per window shared by every replica: sign-in mails to
 * one address (key: a digest of the address), client registrations from one IP, and client
 * registrations in total (key: any constant).
 */
export type Quota = 'sign_in_mail' | 'registration_ip' | 'registration_total';

/** A hung Redis must not hold requests: past this the decision is taken in memory. */
const REDIS_COMMAND_TIMEOUT_MS = 500;
const WINDOW_SECONDS = 60;
/** The sign-in mail quota's window: a few mails per address per quarter hour. */
const SIGN_IN_WINDOW = 15 * 60;
const HOUR = 3600;

type MakeLimiter = (keyPrefix: string, points: number, duration: number) => RateLimiterAbstract;

/**
 * Two budgets, per client IP before authentication and per token after it, and the slower
 * {@link Quota}s, all kept the same way:
 *
 * - `REDIS_URL` set: both in Redis, shared by every replica; one round trip per budget (an atomic
 *   INCR + TTL script).
 * - else `DATABASE_URL` set: both in Postgres (`rate_limits`), shared by every replica.
 * - else (the embedded default, one process): in this process's memory.
 *
 * When the shared store does not answer (Redis or Postgres down, or slower than the command
 * timeout), each replica keeps the budget in its own memory until the store answers again
 * (insurance): requests are still limited, per replica instead of across them. Each such decision
 * counts in `rate_limit_store_fallback_total`, `rate_limit_store_up` says 0, and one log line marks
 * each transition (down, then back).
 */
@Injectable()
export class RateLimitService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RateLimitService.name);
  private perIp!: Budget;
  private perToken!: Budget;
  private quotas!: Record<Quota, Budget>;
  private redis: Redis | undefined;
  private storeUp = true;
  readonly store: RateLimitStore;

  constructor(
    private readonly config: AppConfig,
    @InjectDataSource() private readonly ds: DataSource,
    private readonly metrics: MetricsService,
  ) {
    this.store = config.redisUrl !== undefined ? 'redis' : config.embedded ? 'memory' : 'postgres';
  }

  onModuleInit(): void {
    // The embedded default keeps its budgets in memory: there is no shared store to make.
    const make = this.store === 'memory' ? undefined : this.limiterFactory();
    this.perIp = this.budget('ip', make, this.config.rateLimitPerIpPerMinute);
    this.perToken = this.budget('token', make, this.config.rateLimitPerTokenPerMinute);
    const c = this.config;
    this.quotas = {
      sign_in_mail: this.budget('sign_in_mail', make, c.signInMailsPerAddress, SIGN_IN_WINDOW),
      registration_ip: this.budget('registration_ip', make, c.oauthRegistrationsPerIpPerHour, HOUR),
      registration_total: this.budget(
        'registration_total',
        make,
        c.oauthRegistrationsPerHour,
        HOUR,
      ),
    };
    this.metrics.setRateLimitStoreUp(true);
    this.logger.log(
      this.store === 'redis'
        ? `Rate limits in Redis (${redactRedisUrl(this.config.redisUrl ?? '')}), shared by every replica`
        : this.store === 'postgres'
          ? 'Rate limits in Postgres, shared by every replica'
          : 'Rate limits in process memory (embedded database, one process)',
    );
  }

  async onModuleDestroy(): Promise<void> {
    const redis = this.redis;
    this.redis = undefined;
    if (redis === undefined) return;
    // QUIT when connected (pending replies arrive first); a client still reconnecting just stops.
    if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
    else redis.disconnect();
  }

  consumeIp(ip: string): Promise<RateLimitDecision> {
    return this.consume(this.perIp, ip);
  }

  consumeToken(tokenId: string): Promise<RateLimitDecision> {
    return this.consume(this.perToken, tokenId);
  }

  /** Spends one unit of `quota` for `key` (e.g. the digest of an address, a client IP). */
  consumeQuota(quota: Quota, key: string): Promise<RateLimitDecision> {
    return this.consume(this.quotas[quota], key);
  }

  private budget(
    name: RateLimitBudget,
    make: MakeLimiter | undefined,
    points: number,
    duration = WINDOW_SECONDS,
  ): Budget {
    if (make === undefined) {
      return {
        name,
        shared: new RateLimiterMemory({ keyPrefix: name, points, duration }),
        insurance: undefined,
      };
    }
    return {
      name,
      shared: make(name, points, duration),
      insurance: new RateLimiterMemory({ keyPrefix: name, points, duration }),
    };
  }

  private limiterFactory(): MakeLimiter {
    if (this.store === 'redis') {
      const redis = new Redis(this.config.redisUrl ?? '', {
        // Fail fast while disconnected (the insurance limiter answers) instead of queueing
        // commands until Redis returns; reconnect in the background, forever.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        connectTimeout: 2_000,
        retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
      });
      // ioredis reports every failed reconnection as an `error` event; the transition is logged
      // once by `storeFailed`, so these are only kept from becoming unhandled.
      redis.on('error', () => undefined);
      this.redis = redis;
      const prefix = `${this.config.redisKeyPrefix}:rl`;
      return (keyPrefix, points, duration) =>
        new RateLimiterRedis(
          redisLimiterOptions(redis, `${prefix}:${keyPrefix}`, points, duration),
        );
    }
    // The Postgres driver keeps its `pg` pool as `master`.
    const pool = 'master' in this.ds.driver ? this.ds.driver.master : undefined;
    if (!isPgQueryable(pool)) throw new Error('RateLimitService: the data source has no pg pool');
    return (keyPrefix, points, duration) =>
      new RateLimiterPostgres(postgresLimiterOptions(pool, keyPrefix, points, duration));
  }

  private async consume(budget: Budget, key: string): Promise<RateLimitDecision> {
    try {
      await budget.shared.consume(key, 1);
      this.storeAnswered();
      return { allowed: true };
    } catch (res) {
      if (res instanceof RateLimiterRes) return refused(res);
      if (budget.insurance === undefined) {
        // Process memory never fails; anything else is a bug, and refusing everyone would be worse.
        this.logger.error(
          { err: res },
          'in-memory rate limiter failed; letting the request through',
        );
        return { allowed: true };
      }
      this.storeFailed(res);
      this.metrics.recordRateLimitFallback(budget.name);
      try {
        await budget.insurance.consume(key, 1);
        return { allowed: true };
      } catch (insured) {
        if (insured instanceof RateLimiterRes) return refused(insured);
        throw insured;
      }
    }
  }

  private storeAnswered(): void {
    if (this.storeUp) return;
    this.storeUp = true;
    this.metrics.setRateLimitStoreUp(true);
    this.logger.log(`Rate-limit store (${this.store}) answers again: budgets are shared again`);
  }

  private storeFailed(err: unknown): void {
    if (!this.storeUp) return;
    this.storeUp = false;
    this.metrics.setRateLimitStoreUp(false);
    this.logger.warn(
      { err },
      `Rate-limit store (${this.store}) is not answering: each replica now keeps the budgets in its own memory until it answers again`,
    );
  }
}

function refused(res: RateLimiterRes): RateLimitDecision {
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
}
