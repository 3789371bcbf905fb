// The one starter of the BUILT server (`node dist/apps/server/src/main.js`) as a child process,
// shared by the e2e and ops tests (test/support/built-server.ts), the conformance run
// (test/conformance/run.mjs) and the benchmark (bench/). Plain ESM with node built-ins only (and
// `pg`, loaded when a fresh database is asked for), so a script runs it with `node` and vitest
// imports it from TypeScript; its types are in server-process.d.mts next to it.
//
// What it owns: the child's environment, its port, the readiness wait (GET /health/ready answers
// 200, and the demo tokens file is written when the server seeds), its output (kept in memory, or
// echoed with a prefix) and its stop (SIGTERM, then SIGKILL after a grace period). What it leaves to
// the caller: which database (a URL, or none for the embedded engine under DATA_DIR), and where
// the temporary DATA_DIR lives and when it is removed.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** This checkout (the default root whose dist/ runs). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The built entry points of a checkout. */
export function builtPaths(root = REPO_ROOT) {
  return {
    main: join(root, 'dist/apps/server/src/main.js'),
    migrate: join(root, 'dist/apps/server/src/migrate.js'),
  };
}

/** Throws unless `root` has a built server. */
export function requireBuilt(root = REPO_ROOT) {
  const { main } = builtPaths(root);
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
}

/**
 * The kernel's ephemeral range (`listen(0)` and every outgoing connection take their local port
 * from it), or undefined where it cannot be read (not Linux).
 */
function ephemeralRange() {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    return Number.isInteger(low) && Number.isInteger(high) ? { low, high } : undefined;
  } catch {
    return undefined;
  }
}

/** Ports this process has handed out: never twice, so two starts side by side never share one. */
const HANDED_OUT = new Set();

function probe(port) {
  return new Promise((resolvePort, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolvePort(bound));
    });
  });
}

/**
 * A TCP port free on 127.0.0.1 that stays free until the caller binds it. A port from
 * `listen(0)` does not: it is in the kernel's ephemeral range, so between its probe closing and
 * the caller's listen any outgoing connection (a pool's, a fetch's) or any other `listen(0)` may
 * take it; CI lost a server start to exactly that (EADDRINUSE). So the port is drawn at random
 * from below that range, where the kernel never assigns one, probed, and never handed out twice
 * by this process. Where the range cannot be read, `listen(0)` is the fallback.
 */
export async function freePort() {
  const range = ephemeralRange();
  if (range !== undefined && range.low > 12_000) {
    const low = Math.max(10_000, range.low - 20_000);
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const port = low + Math.floor(Math.random() * (range.low - low));
      if (HANDED_OUT.has(port)) continue;
      HANDED_OUT.add(port);
      const ok = await probe(port).then(
        () => true,
        () => false,
      );
      if (ok) return port;
    }
  }
  return probe(0);
}

/**
 * Every child this process launched and has not yet seen exit: killed when this process exits, so
 * a test or script that gave up while waiting for one never leaves it running.
 */
const LIVE_CHILDREN = new Set();
process.once('exit', () => {
  for (const child of LIVE_CHILDREN) child.kill('SIGKILL');
});

const TAIL_CHARS = 16_000;
const EARLY_LINES = 50;

/**
 * Spawns a child with stdout and stderr piped: kept in memory (`stdout()`, `stderr()` in full,
 * `tail()` the last 16 kB of both), and with `echo`, also written to ours line by line with a
 * `[label]` prefix. `stop()` sends SIGTERM and, after `graceMs`, SIGKILL.
 */
export function launch(label, command, args, { cwd, env, graceMs = 15_000, echo = false } = {}) {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  LIVE_CHILDREN.add(child);
  child.once('exit', () => LIVE_CHILDREN.delete(child));
  let out = '';
  let err = '';
  let tail = '';
  const early = []; // the first lines, for a wait that starts after they were printed
  const listeners = new Set();
  const prefixed = (text) =>
    text
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => `[${label}] ${l}\n`)
      .join('');
  const keep = (stream) => (chunk) => {
    const text = chunk.toString();
    if (stream === 'stdout') out += text;
    else err += text;
    tail = (tail + text).slice(-TAIL_CHARS);
    if (echo) (stream === 'stdout' ? process.stdout : process.stderr).write(prefixed(text));
    for (const line of text.split('\n')) {
      if (early.length < EARLY_LINES) early.push(line);
      for (const l of listeners) l(line);
    }
  };
  child.stdout.on('data', keep('stdout'));
  child.stderr.on('data', keep('stderr'));
  const exited = new Promise((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit({ code, signal })),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    label,
    child,
    pid: child.pid,
    exited,
    stdout: () => out,
    stderr: () => err,
    tail: () => tail,
    /** Resolves with the first stdout/stderr line matching `pattern` (or rejects on exit/timeout). */
    waitForLine(pattern, timeoutMs = 30_000) {
      return new Promise((resolveLine, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(
            new Error(`${label}: no line matching ${pattern} within ${timeoutMs} ms\n${tail}`),
          );
        }, timeoutMs);
        const listener = (line) => {
          const match = pattern.exec(line);
          if (match === null) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolveLine(match);
        };
        listeners.add(listener);
        for (const line of early) if (listeners.has(listener)) listener(line);
        void exited.then(({ code }) => {
          clearTimeout(timer);
          if (listeners.delete(listener)) reject(new Error(`${label} exited (${code}):\n${tail}`));
        });
      });
    },
    async stop() {
      if (!running()) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        await exited;
      } finally {
        clearTimeout(killer);
      }
    },
  };
}

/** Runs a command to its end (output echoed with a prefix); resolves its exit code. */
export async function runToEnd(label, command, args, options = {}) {
  const handle = launch(label, command, args, { echo: true, ...options });
  const { code, signal } = await handle.exited;
  return code ?? (signal ? 1 : 0);
}

/**
 * Polls `url` until it answers 2xx and `ready()` holds; throws when `handle`'s process exits first
 * or `timeoutMs` passes (with the process's last output).
 */
export async function waitForHttp(
  handle,
  url,
  { timeoutMs = 120_000, ready = () => true, intervalMs = 100 } = {},
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (handle.child.exitCode !== null)
      throw new Error(
        `${handle.label} exited (${handle.child.exitCode}) during startup:\n${handle.tail()}`,
      );
    const ok = await fetch(url).then(
      (res) => res.ok,
      () => false, // not listening yet
    );
    if (ok && ready()) return;
    await delay(intervalMs);
  }
  throw new Error(`${handle.label} was not ready within ${timeoutMs / 1000} s:\n${handle.tail()}`);
}

/**
 * A fresh, empty database on the Postgres named by `adminUrl` (`<prefix>_<time>_<pid>`); `drop()`
 * removes it WITH (FORCE). Not migrated: see {@link migrateBuilt}.
 */
export async function freshDatabase(adminUrl, prefix) {
  const { default: pg } = await import('pg');
  const name = `${prefix}_${Date.now().toString(36)}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const { rows } = await admin.query('SELECT version() AS v');
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    version: rows[0].v,
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Runs the built `migrate.js up` of `root` against `databaseUrl`; throws with its output if it fails. */
export async function migrateBuilt({ root = REPO_ROOT, databaseUrl, env = {} }) {
  const handle = launch('migrate', process.execPath, [builtPaths(root).migrate, 'up'], {
    cwd: root,
    env: { ...inheritedEnv(), ...env, DATABASE_URL: databaseUrl },
  });
  const { code } = await handle.exited;
  if (code !== 0) throw new Error(`migrations failed:\n${handle.tail()}`);
}

/**
 * Variables of the caller's environment that describe another server or another test runner:
 * never inherited by the child unless the caller sets them.
 */
const NOT_INHERITED = [
  'NODE_OPTIONS',
  'PUBLIC_BASE_URL',
  'MCP_ALLOWED_ORIGINS',
  'DATABASE_URL',
  'SERVER_SECRET_KEYS',
  'SEED_DEMO',
  'VITEST',
  'VITEST_POOL_ID',
  'VITEST_WORKER_ID',
];

/** This process's environment minus {@link NOT_INHERITED}. */
function inheritedEnv() {
  const out = { ...process.env };
  for (const key of NOT_INHERITED) delete out[key];
  return out;
}

/**
 * The child's environment: the caller's minus {@link NOT_INHERITED}, then the defaults (production,
 * loopback, `port`, `dataDir`, LOG_LEVEL=warn, both rate limits high enough for one address's test
 * traffic), then `database` (DATABASE_URL, SEED_DEMO, SERVER_SECRET_KEYS: random unless given),
 * then `env`.
 */
export function serverEnv({ port, dataDir, database, env = {} }) {
  const out = inheritedEnv();
  Object.assign(out, {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_IP_PER_MINUTE: '100000',
    RATE_LIMIT_PER_TOKEN_PER_MINUTE: '100000',
  });
  if (database !== undefined) {
    out.DATABASE_URL = database.url;
    out.SEED_DEMO = database.seed === false ? 'false' : 'true';
    out.SERVER_SECRET_KEYS = randomBytes(32).toString('hex');
  }
  return { ...out, ...env };
}

/**
 * Starts the built server of `root` and waits until it is ready: on the embedded engine under
 * `dataDir` when `database` is undefined, else on `database.url` (migrated by the caller; seeded
 * with the demo organisation unless `seed: false`, e.g. a second replica). Resolves the process
 * handle (see {@link launch}) with `url`, `port`, `env` and, when it seeds, the demo `tokens`.
 */
export async function startBuiltServer({
  root = REPO_ROOT,
  label = 'server',
  dataDir,
  database,
  env,
  nodeArgs = [],
  port,
  timeoutMs = 120_000,
  graceMs = 15_000,
}) {
  requireBuilt(root);
  const options = { root, label, dataDir, database, env, nodeArgs, timeoutMs, graceMs };
  if (port !== undefined) return startOnce(port, options);
  // A port this process drew can still be bound by another process in between (another test
  // worker's own draw): that start is repeated on a new port, never reported as the server's fault.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(await freePort(), options);
    } catch (e) {
      if (attempt >= 3 || !(e instanceof Error) || !/EADDRINUSE/.test(e.message)) throw e;
    }
  }
}

async function startOnce(
  listen,
  { root, label, dataDir, database, env, nodeArgs, timeoutMs, graceMs },
) {
  const childEnv = serverEnv({ port: listen, dataDir, database, env });
  const seeds = database === undefined || database.seed !== false;
  const tokensFile = join(dataDir, 'demo-tokens.json');
  const handle = launch(label, process.execPath, [...nodeArgs, builtPaths(root).main], {
    cwd: root,
    env: childEnv,
    graceMs,
  });
  const url = `http://127.0.0.1:${listen}`;
  try {
    // Readiness says 200 once the server has seeded, and the tokens file is written (atomically)
    // before that; the file check covers an older build too.
    await waitForHttp(handle, `${url}/health/ready`, {
      timeoutMs,
      ready: () => !seeds || existsSync(tokensFile),
    });
    const tokens = seeds ? JSON.parse(await readFile(tokensFile, 'utf8')).tokens : undefined;
    return { ...handle, url, port: listen, env: childEnv, tokens };
  } catch (e) {
    await handle.stop();
    throw e;
  }
}

/**
 * Stops every item (`{ label, stop() }`: a process handle, a database, a temp dir) of `started`,
 * newest first, and empties it; a failure is logged and does not keep the rest running.
 */
export async function stopAll(started, log) {
  for (const item of started.toReversed()) {
    try {
      await item.stop();
    } catch (err) {
      log(`could not stop ${item.label}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  started.length = 0;
}

/**
 * On the first SIGINT or SIGTERM: logs it, stops `started` and exits 130. `abort(code, line)` does
 * the same for a watchdog; `stopping()` says whether either began (the caller then leaves the
 * stopping to them).
 */
export function stopOnSignals(started, log) {
  let stopping = false;
  const abort = (code, line) => {
    stopping = true;
    log(line);
    void stopAll(started, log).then(() => process.exit(code));
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (!stopping) abort(130, `${signal}: stopping`);
    });
  }
  return { stopping: () => stopping, abort };
}
