import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';

interface PgQueryable {
  query(q: { text: string; values?: unknown[] }): Promise<unknown>;
}

function isPgQueryable(value: unknown): value is PgQueryable {
  return (
    typeof value === 'object' &&
    value !== null &&
    'query' in value &&
    typeof value.query === 'function'
  );
}

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Two budgets, per client IP before authentication and per token after it, kept in Postgres so
 * every replica draws on the same budget (replicas share nothing else). If the store fails, an
 * in-memory limiter per replica takes over (insurance) rather than refusing all traffic.
 */
@Injectable()
export class RateLimitService implements OnModuleInit {
  private readonly logger = new Logger(RateLimitService.name);
  private perIp: RateLimiterAbstract;
  private perToken: RateLimiterAbstract;

  constructor(
    private readonly config: AppConfig,
    @InjectDataSource() private readonly ds: DataSource,
  ) {}

  onModuleInit(): void {
    // The Postgres driver keeps its `pg` pool as `master`.
    const pool = 'master' in this.ds.driver ? this.ds.driver.master : undefined;
    if (!isPgQueryable(pool)) throw new Error('RateLimitService: the data source has no pg pool');
    // Unnamed statements only: the embedded Postgres shares one session across connections, so
    // a named prepared statement made on one pool connection collides on the next.
    const storeClient: PgQueryable = {
      query: (q: { text: string; values?: unknown[] }) =>
        pool.query({ text: q.text, values: q.values }),
    };
    const make = (keyPrefix: string, points: number): RateLimiterAbstract =>
      new RateLimiterPostgres({
        storeClient,
        storeType: 'pool',
        tableName: 'rate_limits',
        tableCreated: true,
        keyPrefix,
        points,
        duration: 60,
        inMemoryBlockOnConsumed: points,
        inMemoryBlockDuration: 10,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: 60 }),
      });
    this.perIp = make('ip', this.config.rateLimitPerIpPerMinute);
    this.perToken = make('token', this.config.rateLimitPerTokenPerMinute);
  }

  consumeIp(ip: string): Promise<RateLimitDecision> {
    return this.consume(this.perIp, ip);
  }

  consumeToken(tokenId: string): Promise<RateLimitDecision> {
    return this.consume(this.perToken, tokenId);
  }

  private async consume(limiter: RateLimiterAbstract, key: string): Promise<RateLimitDecision> {
    try {
      await limiter.consume(key, 1);
      return { allowed: true };
    } catch (res) {
      if (res instanceof RateLimiterRes) {
        return {
          allowed: false,
          retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
        };
      }
      this.logger.warn({ err: res }, 'rate limiter failed; letting the request through');
      return { allowed: true };
    }
  }
}
