import { type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type QueryResultRow } from 'pg';
import { EmbeddedPostgres } from '@app/database';
import { createTestDatabase, TEST_EMBEDDED_DATA_DIR, type TestDatabase } from '@app/testing';
import type { DemoTokenSecrets } from '@app/demo';
import {
  builtPaths,
  freePort,
  REPO_ROOT,
  startBuiltServer as startServer,
  type Exit,
  type StartedServer,
} from './server-process.mjs';

/**
 * The BUILT server (`node dist/apps/server/src/main.js`) as a child process, the way it runs in
 * production, for the tests that need what only a process shows: its stdout log lines, its
 * signal handling and its exit code.
 *
 * Build first: these tests require `npm run build` (CI runs it before `npm test`) and refuse to
 * run against a missing or stale `dist/` rather than build it themselves — `nest build` empties
 * `dist/` first (`deleteOutDir`), which would pull it from under any other test file running a
 * built server in parallel.
 *
 * Database: the child's own embedded Postgres under a temporary DATA_DIR by default (the
 * production default; a copy of the run's migrated template, {@link seedEmbeddedDataDir}); with `DATABASE_URL` set, a test database of its own on that server
 * (`createTestDatabase`: migrated), seeded by the server with `SEED_DEMO=true` and dropped by
 * {@link BuiltServer.dispose}.
 *
 * Environment, port, readiness wait, output and stop are the shared starter's
 * (`server-process.mjs`, also used by the conformance run and the benchmark); this file adds the
 * build check, the test database and the log-line and after-exit readers.
 */

const ROOT = REPO_ROOT;
const MAIN = builtPaths(ROOT).main;
const SOURCE_DIRS = ['apps', 'libs'];

/** When this process started: sources edited after that cannot be meant for this run. */
const PROCESS_STARTED_MS = Date.now() - process.uptime() * 1000;

/**
 * The newest non-test TypeScript source under apps/ and libs/ edited before this test process
 * started (a file edited while the tests run does not make the build they started with stale).
 */
function newestSource(): { file: string; mtimeMs: number } {
  let newest = { file: '', mtimeMs: 0 };
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !/\.(spec|e2e-spec)\.ts$/.test(entry.name)) {
        const { mtimeMs } = statSync(path);
        if (mtimeMs > newest.mtimeMs && mtimeMs < PROCESS_STARTED_MS)
          newest = { file: path, mtimeMs };
      }
    }
  };
  for (const dir of SOURCE_DIRS) walk(join(ROOT, dir));
  return newest;
}

/** Throws unless `dist/` exists and is at least as new as every source file. */
export function requireBuild(): void {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  const built = statSync(MAIN).mtimeMs;
  const source = newestSource();
  if (source.mtimeMs > built)
    throw new Error(
      `dist/ is older than ${source.file.slice(ROOT.length + 1)}: run \`npm run build\` first`,
    );
}

export { freePort };

/** One parsed stdout line (pino JSON), or the raw text when a line is not JSON. */
// oxlint-disable-next-line typescript/no-explicit-any -- log lines are read field by field
export type LogLine = Record<string, any>;

function isLogLine(value: unknown): value is LogLine {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type { Exit };

export interface BuiltServer {
  url: string;
  tokens: DemoTokenSecrets;
  /** The process's DATA_DIR (its local mail drop is `mail/` there). */
  dataDir: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** The stdout lines that are JSON objects, parsed. */
  logLines(): LogLine[];
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** SQL against the server's database after it exited (its embedded data directory reopened). */
  queryAfterExit<T extends QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Stops the process if it still runs (SIGTERM, then SIGKILL), drops the database, removes files. */
  dispose(): Promise<void>;
}

export interface BuiltServerOptions {
  /** Extra environment (e.g. `SHUTDOWN_GRACE_MS`). */
  env?: Record<string, string>;
}

/**
 * On the embedded engine, gives `dataDir` a copy of the run's migrated template data directory
 * (`TEST_EMBEDDED_DATA_DIR`, made by the global setup) unless it already has a database, so the
 * built server starting there skips initdb and every migration: about 10 s of CPU per start. It
 * still runs its migrator (nothing pending) and seeds as on a first start. Returns whether it
 * copied; without a template (a tier run without the global setup) the server creates its own.
 */
export async function seedEmbeddedDataDir(dataDir: string): Promise<boolean> {
  const template = process.env[TEST_EMBEDDED_DATA_DIR];
  const target = join(dataDir, 'pgdata');
  if (template === undefined || template === '' || existsSync(target)) return false;
  await cp(template, target, { recursive: true });
  return true;
}

export async function startBuiltServer(options: BuiltServerOptions = {}): Promise<BuiltServer> {
  requireBuild();
  const work = await mkdtemp(join(tmpdir(), 'platform-e2e-'));
  const dataDir = join(work, 'data');
  let database: TestDatabase | undefined;
  let server: StartedServer | undefined;
  let tokens: DemoTokenSecrets;
  const dispose = async (): Promise<void> => {
    try {
      await server?.stop();
    } finally {
      try {
        await database?.dispose();
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    }
  };

  try {
    const adminUrl = process.env.DATABASE_URL;
    // Migrated by the harness (a copy of the run's template); the server seeds it.
    if (adminUrl !== undefined && adminUrl !== '') database = await createTestDatabase();
    else await seedEmbeddedDataDir(dataDir);
    server = await startServer({
      dataDir,
      database: database === undefined ? undefined : { url: database.url },
      env: {
        LOG_LEVEL: 'info',
        SIGN_IN_MAILS_PER_ADDRESS: '100',
        ...options.env,
      },
      graceMs: 20_000,
    });
    // The server seeds the demo organisation here: its tokens file is there once it is ready.
    const file: { tokens: DemoTokenSecrets } = JSON.parse(
      await readFile(join(dataDir, 'demo-tokens.json'), 'utf8'),
    );
    tokens = file.tokens;
  } catch (e) {
    await dispose();
    throw e;
  }
  const running = server;

  return {
    url: running.url,
    tokens,
    dataDir,
    child: running.child,
    stdout: running.stdout,
    stderr: running.stderr,
    logLines: () =>
      running
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .flatMap((l) => {
          try {
            const line: unknown = JSON.parse(l);
            return isLogLine(line) ? [line] : [];
          } catch {
            return [];
          }
        }),
    exited: running.exited,
    queryAfterExit: async <T extends QueryResultRow>(sql: string, params: unknown[] = []) => {
      if (running.child.exitCode === null && running.child.signalCode === null)
        throw new Error('queryAfterExit: the server is still running');
      const embedded =
        database === undefined
          ? await EmbeddedPostgres.start({ dataDir: join(dataDir, 'pgdata') })
          : undefined;
      const client = new Client({ connectionString: database?.url ?? embedded?.url });
      try {
        await client.connect();
        return (await client.query<T>(sql, params)).rows;
      } finally {
        await client.end().catch(() => undefined);
        await embedded?.stop();
      }
    },
    dispose,
  };
}

/**
 * Several built servers started side by side (each start mostly waits on its engine and its
 * migrator check, so together they take little longer than one); if any fails to start, the
 * others are stopped again and the first failure is thrown.
 */
export async function startBuiltServers(list: BuiltServerOptions[]): Promise<BuiltServer[]> {
  const settled = await Promise.allSettled(list.map((options) => startBuiltServer(options)));
  const started = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed === undefined) return started;
  await Promise.all(started.map((server) => server.dispose()));
  throw failed.reason;
}
