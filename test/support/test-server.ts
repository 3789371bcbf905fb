import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type AppConfig } from '@app/config';
import type { DemoTokenSecrets } from '@app/demo';
import { createTestDatabase, type TestDatabase } from '@app/testing';
import { startServer, type RunningServer } from '../../apps/server/src/bootstrap.js';

export interface TestServer {
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  tokens: DemoTokenSecrets;
  db: TestDatabase;
  server: RunningServer;
  /**
   * fetch against the server with an optional bearer token: a demo token name (a key of
   * {@link DemoTokenSecrets}) or a raw secret.
   */
  request(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The configuration every in-process test server runs with over `db` (a private data directory,
 * fresh secret keys, quiet logs, generous rate limits), with `overrides` on top.
 */
export function testConfig(db: TestDatabase, overrides: Partial<AppConfig> = {}): AppConfig {
  return loadConfig(
    {},
    {
      nodeEnv: 'test',
      port: 0,
      logLevel: 'silent',
      databaseUrl: db.url,
      // The embedded Postgres is one backend session: one pool connection keeps statements from
      // different connections from interleaving (see docs/adr/0003).
      ...(process.env.DATABASE_URL ? {} : { dbPoolSize: 1 }),
      serverSecretKeys: [randomBytes(32).toString('hex')],
      // A data directory of this server's own (the local mail drop lives there), never the
      // repository's `.data` that parallel test files would share.
      dataDir: overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'mcp-test-data-')),
      rateLimitPerIpPerMinute: 100_000,
      rateLimitPerTokenPerMinute: 100_000,
      // Tests sign the same demo people in many times; the quota has a test of its own.
      signInMailsPerAddress: 100,
      ...overrides,
    },
  );
}

function requester(baseUrl: string, tokens: DemoTokenSecrets): TestServer['request'] {
  return (path, init = {}) => {
    const { token, json, headers, ...rest } = init;
    const h = new Headers(headers);
    if (token !== undefined)
      h.set('authorization', `Bearer ${(tokens as Record<string, string>)[token] ?? token}`);
    if (json !== undefined) h.set('content-type', 'application/json');
    return fetch(`${baseUrl}${path}`, {
      ...rest,
      headers: h,
      body: json === undefined ? rest.body : JSON.stringify(json),
    });
  };
}

/**
 * The production server (same bootstrap, same Fastify pipeline) on a free loopback port, over a
 * database of this test file's own (real Postgres when DATABASE_URL is set, else embedded), with
 * the demo organisation seeded.
 */
export async function startTestServer(
  overrides: Partial<AppConfig> = {},
  options: {
    /**
     * How the server reaches its database, given the test database's URL (e.g. via a proxy of the
     * test's own, started here once the embedded engine's port is known).
     */
    databaseUrl?: (url: string) => string | Promise<string>;
  } = {},
): Promise<TestServer> {
  const db = await createTestDatabase();
  let server: RunningServer;
  try {
    const databaseUrl = await options.databaseUrl?.(db.url);
    const config = testConfig(
      db,
      databaseUrl === undefined ? overrides : { ...overrides, databaseUrl },
    );
    server = await startServer(config, {
      seedDemo: 'always',
      writeDemoTokens: false,
    });
  } catch (err) {
    await db.dispose();
    throw err;
  }
  const tokens = server.demoTokens!;
  return {
    url: server.url,
    tokens,
    db,
    server,
    request: requester(server.url, tokens),
    close: async () => {
      try {
        await server.close();
      } finally {
        await db.dispose();
        rmSync(server.config.dataDir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Another replica of `primary`: the same database, keys and public URL, its own process state
 * (caches, in-memory budgets). `close()` stops this replica only; the database stays `primary`'s.
 */
export async function startTestReplica(
  primary: TestServer,
  overrides: Partial<AppConfig> = {},
): Promise<TestServer> {
  const server = await startServer(
    testConfig(primary.db, {
      serverSecretKeys: [...primary.server.config.serverSecretKeys],
      publicBaseUrl: primary.url,
      dataDir: primary.server.config.dataDir,
      ...overrides,
    }),
    { seedDemo: 'never', writeDemoTokens: false },
  );
  const tokens = primary.tokens;
  return {
    url: server.url,
    tokens,
    db: primary.db,
    server,
    request: requester(server.url, tokens),
    close: () => server.close(),
  };
}

/**
 * Two replicas of one database (see {@link startTestReplica}), both with `overrides`; `close()`
 * stops both.
 */
export async function startReplicaPair(overrides: Partial<AppConfig> = {}): Promise<{
  a: TestServer;
  b: TestServer;
  close(): Promise<void>;
}> {
  const a = await startTestServer(overrides);
  try {
    const b = await startTestReplica(a, overrides);
    return {
      a,
      b,
      close: async () => {
        try {
          await b.close();
        } finally {
          await a.close();
        }
      },
    };
  } catch (err) {
    await a.close();
    throw err;
  }
}
