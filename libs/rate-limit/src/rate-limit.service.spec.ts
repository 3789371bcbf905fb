import { describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { MetricsService } from '@app/metrics';
import { RateLimitService } from './rate-limit.service.js';

// Never initialised: the in-memory budgets must not need a database.
const noDatabase = new DataSource({ type: 'postgres' });

describe('RateLimitService without a shared store (the embedded default)', () => {
  it('keeps both budgets in process memory and refuses past them with a Retry-After', async () => {
    const config = loadConfig({}, { rateLimitPerTokenPerMinute: 2, rateLimitPerIpPerMinute: 3 });
    expect(config.embedded).toBe(true);
    const service = new RateLimitService(config, noDatabase, new MetricsService());
    service.onModuleInit();
    expect(service.store).toBe('memory');

    const token = [];
    for (let i = 0; i < 3; i++) token.push(await service.consumeToken('t1'));
    expect(token.map((d) => d.allowed)).toEqual([true, true, false]);
    expect(token[2]).toMatchObject({ allowed: false, retryAfterSeconds: expect.any(Number) });
    expect((await service.consumeToken('t2')).allowed).toBe(true);

    const ip = [];
    for (let i = 0; i < 4; i++) ip.push((await service.consumeIp('192.0.2.1')).allowed);
    expect(ip).toEqual([true, true, true, false]);
    await service.onModuleDestroy();
  });

  it('chooses Redis when REDIS_URL is set, Postgres with only DATABASE_URL', () => {
    const metrics = new MetricsService();
    const redis = loadConfig({ REDIS_URL: 'redis://127.0.0.1:1' });
    expect(new RateLimitService(redis, noDatabase, metrics).store).toBe('redis');
    const pg = loadConfig({
      DATABASE_URL: 'postgres://u@db/x',
      SERVER_SECRET_KEYS: 'k'.repeat(32),
    });
    expect(new RateLimitService(pg, noDatabase, metrics).store).toBe('postgres');
  });
});
