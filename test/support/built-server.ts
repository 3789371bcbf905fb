import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client, type QueryResultRow } from 'pg';
import { EmbeddedPostgres } from '@app/database';
import { createTestDatabase, type TestDatabase } from '@app/testing';
import type { DemoTokenSecrets } from '@app/demo';

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
 * production default); with `DATABASE_URL` set, a test database of its own on that server
 * (`createTestDatabase`: migrated), seeded by the server with `SEED_DEMO=true` and dropped by
 * {@link BuiltServer.dispose}.
 */

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const MAIN = join(ROOT, 'dist/apps/server/src/main.js');
const SOURCE_DIRS = ['apps', 'libs'];
const STARTUP_TIMEOUT_MS = 120_000;

/**
 * Every server process this test process started and has not yet seen exit: killed when the test
 * process exits, so a test that timed out while waiting for one never leaves it running.
 */
const LIVE_CHILDREN = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of LIVE_CHILDREN) child.kill('SIGKILL');
});

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

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

/** One parsed stdout line (pino JSON), or the raw text when a line is not JSON. */
// oxlint-disable-next-line typescript/no-explicit-any -- log lines are read field by field
export type LogLine = Record<string, any>;

function isLogLine(value: unknown): value is LogLine {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

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

export async function startBuiltServer(options: BuiltServerOptions = {}): Promise<BuiltServer> {
  requireBuild();
  const work = await mkdtemp(join(tmpdir(), 'platform-e2e-'));
  const dataDir = join(work, 'data');
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_IP_PER_MINUTE: '100000',
    RATE_LIMIT_PER_TOKEN_PER_MINUTE: '100000',
    SIGN_IN_MAILS_PER_ADDRESS: '100',
    ...options.env,
  };
  for (const key of [
    'NODE_OPTIONS',
    'PUBLIC_BASE_URL',
    'MCP_ALLOWED_ORIGINS',
    'DATABASE_URL',
    'SERVER_SECRET_KEYS',
    'SEED_DEMO',
    'VITEST',
    'VITEST_POOL_ID',
    'VITEST_WORKER_ID',
  ])
    if (options.env?.[key] === undefined) delete env[key];

  const adminUrl = process.env.DATABASE_URL;
  let database: TestDatabase | undefined;
  let child: ChildProcess | undefined;
  let exited: Promise<Exit> = Promise.resolve({ code: null, signal: null });
  let out = '';
  let err = '';
  const url = `http://127.0.0.1:${port}`;
  const tokensFile = join(dataDir, 'demo-tokens.json');
  const dispose = async (): Promise<void> => {
    try {
      if (child !== undefined && child.exitCode === null && child.signalCode === null) {
        const running = child;
        running.kill('SIGTERM');
        const killer = setTimeout(() => running.kill('SIGKILL'), 20_000);
        try {
          await exited;
        } finally {
          clearTimeout(killer);
        }
      }
    } finally {
      try {
        await database?.dispose();
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    }
  };

  let tokens: DemoTokenSecrets;
  try {
    if (adminUrl !== undefined && adminUrl !== '') {
      // Migrated by the harness (a copy of the run's template); the server seeds it.
      database = await createTestDatabase();
      env.DATABASE_URL = database.url;
      env.SEED_DEMO = 'true';
      env.SERVER_SECRET_KEYS = options.env?.SERVER_SECRET_KEYS ?? randomBytes(32).toString('hex');
    }

    const started = spawn(process.execPath, [MAIN], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    LIVE_CHILDREN.add(started);
    started.once('exit', () => LIVE_CHILDREN.delete(started));
    started.stdout.on('data', (c: Buffer) => (out += c.toString()));
    started.stderr.on('data', (c: Buffer) => (err += c.toString()));
    exited = new Promise<Exit>((resolveExit) =>
      started.once('exit', (code, signal) => resolveExit({ code, signal })),
    );

    // Readiness says 200 only once the tokens file is complete (written atomically before).
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    for (;;) {
      if (started.exitCode !== null)
        throw new Error(`the server exited (${started.exitCode}) during startup:\n${err}\n${out}`);
      if (Date.now() > deadline) throw new Error(`the server was not ready in time:\n${err}`);
      const ready = await fetch(`${url}/health/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      await delay(100);
    }
    const file: { tokens: DemoTokenSecrets } = JSON.parse(await readFile(tokensFile, 'utf8'));
    tokens = file.tokens;
  } catch (e) {
    await dispose();
    throw e;
  }
  const running = child;

  return {
    url,
    tokens,
    dataDir,
    child: running,
    stdout: () => out,
    stderr: () => err,
    logLines: () =>
      out
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
    exited,
    queryAfterExit: async <T extends QueryResultRow>(sql: string, params: unknown[] = []) => {
      if (running.exitCode === null && running.signalCode === null)
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
