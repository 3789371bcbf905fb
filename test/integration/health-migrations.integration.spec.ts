import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '@app/config';
import { MIGRATIONS, migrate } from '@app/database';
import { createTestDatabase, type TestDatabase } from '@app/testing';
import { startServer, type RunningServer } from '../../apps/server/src/bootstrap.js';

/**
 * Readiness means ready: on a database one migration behind, `/health/ready` answers 503 naming
 * the pending migration, a clear line is logged (once, not per probe), the server runs neither the
 * migration nor `synchronize`; once the migrations have run (out of band), it becomes ready.
 */

const LAST = MIGRATIONS[MIGRATIONS.length - 1].name;
/** What the last migration creates (see its file): it must not appear until the migrations run. */
const LAST_CREATES = 'ix_audit_events_org_request';

let db: TestDatabase;
let server: RunningServer;
const warnings: string[] = [];

async function indexExists(name: string): Promise<boolean> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_indexes WHERE indexname = $1`,
      [name],
    );
    return Number(rows[0].n) > 0;
  } finally {
    await client.end();
  }
}

async function ready(): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${server.url}/health/ready`);
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  db = await createTestDatabase();
  const reverted = await migrate(db.url, 'down');
  if (reverted.pending.join() !== LAST)
    throw new Error(`expected only ${LAST} pending, got ${reverted.pending.join(', ')}`);
  vi.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
    warnings.push(String(message));
  });
  const config = loadConfig(
    {},
    {
      nodeEnv: 'test',
      port: 0,
      logLevel: 'silent',
      databaseUrl: db.url,
      ...(process.env.DATABASE_URL ? {} : { dbPoolSize: 1 }),
      confirmationKeys: [randomBytes(32).toString('hex')],
    },
  );
  server = await startServer(config, { seedDemo: 'never', writeDemoTokens: false });
});

afterAll(async () => {
  vi.restoreAllMocks();
  await server?.close();
  await db?.dispose();
});

describe('readiness on a database one migration behind', () => {
  it('is live but not ready, naming the pending migration', async () => {
    expect((await fetch(`${server.url}/health/live`)).status).toBe(200);
    const r = await ready();
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({
      error: {
        code: 'SERVICE_UNAVAILABLE',
        details: {
          error: { migrations: { status: 'down', pending: [LAST] } },
          info: { database: { status: 'up' } },
        },
      },
    });
  });

  it('logs one clear line, not one per probe', async () => {
    await ready();
    await ready();
    const lines = warnings.filter((w) => w.includes('migration(s) pending'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(LAST);
    expect(lines[0]).toMatch(/Not ready: the database schema is behind/);
  });

  it('never runs the migration itself, nor synchronize', async () => {
    expect(await indexExists(LAST_CREATES)).toBe(false);
    expect((await migrate(db.url, 'status')).pending).toEqual([LAST]);
  });

  it('becomes ready once the migrations have run', async () => {
    await migrate(db.url, 'up');
    expect(await indexExists(LAST_CREATES)).toBe(true);
    let r = await ready();
    for (let i = 0; r.status !== 200 && i < 20; i++) {
      await delay(100);
      r = await ready();
    }
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'ok',
      info: { database: { status: 'up' }, migrations: { status: 'up' } },
    });
  });
});
