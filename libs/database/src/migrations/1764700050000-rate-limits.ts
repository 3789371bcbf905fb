import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Shared rate-limit counters (rate-limiter-flexible's Postgres store), one budget across replicas. */
export class RateLimits1764700050000 implements MigrationInterface {
  name = 'RateLimits1764700050000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE rate_limits (
        key varchar(255) NOT NULL,
        points integer NOT NULL DEFAULT 0,
        expire bigint,
        CONSTRAINT pk_rate_limits PRIMARY KEY (key)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE rate_limits`);
  }
}
