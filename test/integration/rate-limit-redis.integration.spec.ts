import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimitService } from '@app/rate-limit';
import { parseMetrics, sampleKey } from '../support/raw-mcp.js';
import { REDIS_SERVER_MISSING, TestRedis } from '../support/redis-server.js';
import { skipWhen } from '../support/skip.js';
import { startTestReplica, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Rate limits with REDIS_URL: both budgets in Redis, shared by every replica; a Redis that stops
 * answering leaves each replica limiting on its own (insurance), visible in the metrics and the
 * log, until Redis answers again. Every Redis here is a `redis-server` this file starts on a free
 * port (the machine's shared Redis is never touched).
 */
if (REDIS_SERVER_MISSING) console.warn(REDIS_SERVER_MISSING);

async function metric(t: TestServer, name: string, labels: Record<string, string> = {}) {
  const samples = parseMetrics(await (await t.request('/metrics')).text());
  return samples.get(sampleKey(name, labels)) ?? 0;
}

async function statuses(t: TestServer, n: number, token?: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await t.request('/v1/me', token === undefined ? {} : { token });
    await res.body?.cancel();
    out.push(res.status);
  }
  return out;
}

describe('rate limits in Redis, two replicas', skipWhen(REDIS_SERVER_MISSING), () => {
  let redis: TestRedis;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    redis = await TestRedis.start();
    const shared = { redisUrl: redis.url, redisKeyPrefix: 'replicas' };
    a = await startTestServer({
      ...shared,
      rateLimitPerTokenPerMinute: 4,
      rateLimitPerIpPerMinute: 12,
    });
    b = await startTestReplica(a, {
      ...shared,
      rateLimitPerTokenPerMinute: 4,
      rateLimitPerIpPerMinute: 12,
    });
  }, 180_000);
  afterAll(async () => {
    try {
      await b?.close();
      await a?.close();
    } finally {
      await redis?.stop();
    }
  });

  it('uses Redis', () => {
    expect(a.server.app.get(RateLimitService).store).toBe('redis');
  });

  it('one per-token budget across replicas: 2 on A and 2 on B spend it, the 5th is refused on either', async () => {
    expect([...(await statuses(a, 2, 'owner')), ...(await statuses(b, 2, 'owner'))]).toEqual([
      200, 200, 200, 200,
    ]);
    const refused = await a.request('/v1/me', { token: 'owner' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expect((await statuses(b, 1, 'owner'))[0]).toBe(429);
  });

  it('one per-IP budget across replicas (the 12 requests above and below share it)', async () => {
    // 6 requests so far from this address; 6 more on B spend the budget, then A refuses too.
    expect(await statuses(b, 6)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(await statuses(a, 1)).toEqual([429]);
  });

  it('keys carry the configured prefix, so deployments can share a Redis', async () => {
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys('*');
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.every((k) => k.startsWith('replicas:rl:'))).toBe(true);
    } finally {
      client.disconnect();
    }
  });
});

describe('Redis stops answering, then returns', skipWhen(REDIS_SERVER_MISSING), () => {
  let redis: TestRedis;
  let t: TestServer;
  const TOKEN_BUDGET = 6;
  beforeAll(async () => {
    redis = await TestRedis.start();
    t = await startTestServer({
      redisUrl: redis.url,
      redisKeyPrefix: 'outage',
      rateLimitPerTokenPerMinute: TOKEN_BUDGET,
    });
  }, 180_000);
  afterAll(async () => {
    try {
      await t?.close();
    } finally {
      await redis?.stop();
    }
  });

  it('limits per replica in memory while Redis is down, says so in the metrics, and uses Redis again when it returns', async () => {
    expect(await statuses(t, 1, 'member')).toEqual([200]);
    expect(await metric(t, 'rate_limit_store_up')).toBe(1);
    const fallbacksBefore = await metric(t, 'rate_limit_store_fallback_total', {
      budget: 'token',
    });

    await redis.stop();
    // Still answering, and still limiting: the insurance budget is this replica's own.
    const during = await statuses(t, TOKEN_BUDGET + 1, 'member');
    expect(during.slice(0, TOKEN_BUDGET)).toEqual(Array<number>(TOKEN_BUDGET).fill(200));
    expect(during[TOKEN_BUDGET]).toBe(429);
    expect(await metric(t, 'rate_limit_store_up')).toBe(0);
    expect(
      await metric(t, 'rate_limit_store_fallback_total', { budget: 'token' }),
    ).toBeGreaterThanOrEqual(fallbacksBefore + TOKEN_BUDGET);
    expect(await metric(t, 'rate_limit_store_fallback_total', { budget: 'ip' })).toBeGreaterThan(0);

    // Redis returns (empty: no persistence); the client reconnects in the background. Another
    // token's requests land in Redis again once it has.
    await redis.start();
    const client = new Redis(redis.url);
    try {
      const deadline = Date.now() + 20_000;
      let keys: string[] = [];
      while (keys.length === 0 && Date.now() < deadline) {
        await statuses(t, 1, 'readonly_pat');
        keys = await client.keys('outage:rl:token:*');
        if (keys.length === 0) await new Promise((r) => setTimeout(r, 200));
      }
      expect(keys.length).toBeGreaterThan(0);
      expect(await metric(t, 'rate_limit_store_up')).toBe(1);
    } finally {
      client.disconnect();
    }
  });
});

describe('where the budgets live without Redis', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  }, 180_000);
  afterAll(async () => t?.close());

  it('in Postgres when the server is given a database URL', () => {
    expect(t.server.app.get(RateLimitService).store).toBe('postgres');
  });
});
