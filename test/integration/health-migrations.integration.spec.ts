import { rmSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MIGRATIONS, migrate } from '@app/database';
import { createTestDatabase, type TestDatabase } from '@app/testing';
import { startServer, type RunningServer } from '../../apps/server/src/bootstrap.js';
import { testConfig } from '../support/test-server.js';

/**
 * Readiness means ready: on a database one migration behind, `/health/ready` answers 503 naming
 * the pending migration, a clear line is logged (once, not per probe), the server runs neither the
 * migration nor `synchronize`; once the migrations have run (out of band), it becomes ready.
 */

const LAST = MIGRATIONS[MIGRATIONS.length - 1].name;
let db: TestDatabase;
let server: RunningServer;
const warnings: string[] = [];
/** The schema right after the last migration was reverted, before the server started. */
let behind = '';

/**
 * The public schema's shape: every column, index, constraint, trigger and function definition. Whatever
 * the last migration creates or changes shows here, so no test names its effect by hand.
 */
async function schemaShape(): Promise<string> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ item: string }>(
      `SELECT 'index ' || indexdef AS item FROM pg_indexes WHERE schemaname = 'public'
       UNION ALL
       SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable
         FROM information_schema.columns WHERE table_schema = 'public'
       UNION ALL
       SELECT 'constraint ' || c.conname || ' ' || pg_get_constraintdef(c.oid)
         FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'
       UNION ALL
       SELECT 'trigger ' || t.tgname || ' ' || pg_get_triggerdef(t.oid)
         FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid
         JOIN pg_namespace n ON n.oid = r.relnamespace WHERE n.nspname = 'public' AND NOT t.tgisinternal
       UNION ALL
       SELECT 'function ' || p.proname || ' ' || md5(p.prosrc)
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
       ORDER BY 1`,
    );
    return rows.map((r) => r.item).join('\n');
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
  behind = await schemaShape();
  vi.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
    warnings.push(String(message));
  });
  server = await startServer(testConfig(db), { seedDemo: 'never', writeDemoTokens: false });
});

afterAll(async () => {
  vi.restoreAllMocks();
  await server?.close();
  await db?.dispose();
  if (server !== undefined) rmSync(server.config.dataDir, { recursive: true, force: true });
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
    expect(await schemaShape()).toBe(behind);
    expect((await migrate(db.url, 'status')).pending).toEqual([LAST]);
  });

  it('becomes ready once the migrations have run', async () => {
    await migrate(db.url, 'up');
    // The control: running the last migration does change the shape.
    expect(await schemaShape()).not.toBe(behind);
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
