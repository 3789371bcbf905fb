import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { createTestDatabase, type TestDatabase } from '@app/testing';
import { startServer, type RunningServer } from '../../apps/server/src/bootstrap.js';

/**
 * `/health/live` and `/health/ready` while the database becomes unreachable: the server reaches its
 * database (embedded, or the Postgres of DATABASE_URL) through a TCP proxy the test controls —
 * first silenced (packets swallowed: the ping has to time out), then cut (connections reset and
 * refused), then restored.
 */

type Mode = 'pass' | 'silent' | 'cut';

/** A loopback TCP proxy to `target` that can swallow traffic, or cut and refuse connections. */
async function startProxy(target: URL): Promise<{
  url(database: URL): string;
  set(mode: Mode): void;
  close(): Promise<void>;
}> {
  let mode: Mode = 'pass';
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const server = net.createServer((client) => {
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    const pair = { client, upstream };
    pairs.add(pair);
    // While silent, bytes are held (not forwarded) until the proxy passes again.
    const held: { to: net.Socket; chunk: Buffer }[] = [];
    const forward = (to: net.Socket) => (chunk: Buffer) => {
      if (mode === 'silent') held.push({ to, chunk });
      else to.write(chunk);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    const flush = setInterval(() => {
      if (mode === 'silent') return;
      for (let next = held.shift(); next !== undefined; next = held.shift())
        next.to.write(next.chunk);
    }, 20);
    const end = () => {
      clearInterval(flush);
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: (database) => {
      const url = new URL(database);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    set: (next) => {
      mode = next;
      if (next === 'cut')
        for (const { client, upstream } of pairs) {
          client.destroy();
          upstream.destroy();
        }
    },
    close: async () => {
      mode = 'cut';
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let db: TestDatabase;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let server: RunningServer;

beforeAll(async () => {
  db = await createTestDatabase();
  proxy = await startProxy(new URL(db.url));
  const config = loadConfig(
    {},
    {
      nodeEnv: 'test',
      port: 0,
      logLevel: 'silent',
      databaseUrl: proxy.url(new URL(db.url)),
      ...(process.env.DATABASE_URL ? {} : { dbPoolSize: 1 }),
      serverSecretKeys: [randomBytes(32).toString('hex')],
    },
  );
  server = await startServer(config, { seedDemo: 'never', writeDemoTokens: false });
});

afterAll(async () => {
  proxy?.set('pass');
  await server?.close();
  await proxy?.close();
  await db?.dispose();
});

async function probe(path: string): Promise<{ status: number; body: unknown; ms: number }> {
  const started = Date.now();
  const res = await fetch(`${server.url}${path}`);
  return { status: res.status, body: await res.json(), ms: Date.now() - started };
}

/** Polls readiness until it answers `status` (the pool may need a moment to notice or recover). */
async function readyBecomes(status: number, withinMs: number) {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const r = await probe('/health/ready');
    if (r.status === status || Date.now() > deadline) return r;
    await delay(100);
  }
}

describe('health while the database is unreachable', () => {
  it('is live and ready with the database reachable', async () => {
    expect((await probe('/health/live')).status).toBe(200);
    const ready = await probe('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' } } });
  });

  it('silent database: ready answers 503 after its ping timeout; live stays 200 at once', async () => {
    proxy.set('silent');
    const ready = await probe('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({
      error: {
        code: 'SERVICE_UNAVAILABLE',
        details: { error: { database: { status: 'down' } } },
      },
    });
    // Bounded by the 1.5 s ping timeout, not by the pool or the TCP stack.
    expect(ready.ms).toBeGreaterThanOrEqual(1_400);
    expect(ready.ms).toBeLessThan(3_000);
    // A second check while the first ping is still stuck is bounded the same way.
    expect((await probe('/health/ready')).ms).toBeLessThan(3_000);
    const live = await probe('/health/live');
    expect(live.status).toBe(200);
    expect(live.ms).toBeLessThan(500);
  });

  it('cut database (connections reset and refused): ready 503, live 200', async () => {
    proxy.set('cut');
    const ready = await readyBecomes(503, 5_000);
    expect(ready.status).toBe(503);
    expect(ready.ms).toBeLessThan(3_000);
    const live = await probe('/health/live');
    expect(live.status).toBe(200);
    expect(live.ms).toBeLessThan(500);
  });

  it('is ready again once the database is back', async () => {
    proxy.set('pass');
    const ready = await readyBecomes(200, 15_000);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' } } });
  }, 20_000);
});
