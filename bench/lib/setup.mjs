// Setting up a benchmark run: the built server under test (through the shared starter,
// test/support/server-process.mjs), its replicas (Redis, tracing), the baseline build, the floor
// (D) and SDK (E) processes, Redis and the OTLP sink, and the portal users G and H consume.
// Everything started is pushed onto `started`, which the caller stops in reverse order.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  freePort,
  freshDatabase,
  launch,
  migrateBuilt,
  requireBuilt,
  startBuiltServer,
} from '../../test/support/server-process.mjs';
import { createClient, pool } from './http.mjs';
import { listeningPorts, log } from './processes.mjs';

const RATE_LIMIT = '100000000';
const SERVERS = fileURLToPath(new URL('../servers/', import.meta.url));
const SECRET = `bench-${'k'.repeat(40)}`;

/**
 * Starts one built server (`root`/dist) in production mode on a free loopback port, over a fresh
 * database (DATABASE_URL's Postgres) or the embedded one under a temp DATA_DIR; resolves its
 * handle, URL, owner token, engine and the URL a second process can reach its database at.
 * `replicaOf`: another replica of that server's database (already migrated and seeded) and token.
 * `serverNodeArgs`: extra node flags (the profiler passes --cpu-prof).
 */
export async function startServer({
  label,
  root,
  work,
  serverNodeArgs,
  started,
  replicaOf,
  extraEnv = {},
}) {
  requireBuilt(root);
  const prod = startProdCommand(root);
  const env = {
    ...prod.env,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_IP_PER_MINUTE: RATE_LIMIT,
    RATE_LIMIT_PER_TOKEN_PER_MINUTE: RATE_LIMIT,
  };
  const inheritedSecret = process.env.SERVER_SECRET_KEYS;
  if (inheritedSecret !== undefined) env.SERVER_SECRET_KEYS = inheritedSecret;
  const start = (database) =>
    startBuiltServer({
      root,
      label,
      dataDir: join(work, `data-${label}`),
      database,
      env: { ...env, ...extraEnv },
      nodeArgs: [...prod.nodeArgs, ...serverNodeArgs],
    });

  if (replicaOf !== undefined) {
    env.SERVER_SECRET_KEYS ??= SECRET;
    const server = await start({ url: replicaOf.databaseUrl, seed: false });
    started.push(server);
    log(`${label}: ${server.url} (pid ${server.pid}, same database as ${replicaOf.label})`);
    const { engine, engineVersion, databaseUrl, token } = replicaOf;
    return { server, baseUrl: server.url, token, engine, engineVersion, databaseUrl };
  }

  let engine;
  let engineVersion;
  let database;
  if (process.env.DATABASE_URL) {
    const db = await freshDatabase(process.env.DATABASE_URL, 'bench');
    started.push({ label: `database (${label})`, stop: db.drop });
    env.SERVER_SECRET_KEYS ??= SECRET;
    engine = 'postgres';
    engineVersion = db.version.split(' on ')[0];
    database = { url: db.url };
    log(`${label}: fresh database ${db.name} on ${new URL(process.env.DATABASE_URL).host}`);
    await migrateBuilt({ root, databaseUrl: db.url, env: { ...env, NODE_ENV: 'production' } });
  } else {
    engine = 'embedded';
    engineVersion = `PGlite ${packageVersion(root, '@electric-sql/pglite')} (in the server process)`;
    log(`${label}: embedded Postgres (PGlite) under a temporary DATA_DIR`);
  }

  const server = await start(database);
  started.push(server);
  log(`${label}: ${server.url} (pid ${server.pid}, ${root}, NODE_ENV=production, LOG_LEVEL=warn)`);

  let databaseUrl = database?.url;
  if (engine === 'embedded') {
    const pglitePort = listeningPorts(server.pid).find((p) => p !== server.port);
    if (pglitePort === undefined) throw new Error('could not find the embedded Postgres port');
    databaseUrl = `postgres://postgres@127.0.0.1:${pglitePort}/postgres`;
  }
  return {
    server,
    baseUrl: server.url,
    token: server.tokens.owner,
    engine,
    engineVersion,
    databaseUrl,
  };
}

/** A real demo portal user (an active one) of a running server. */
export async function demoPortalUser(client, token) {
  const list = await client.request('GET', '/v1/portal-users?status=active&limit=1', {
    headers: { authorization: `Bearer ${token}` },
  });
  const id = list.json?.data?.[0]?.id;
  if (list.status !== 200 || typeof id !== 'string')
    throw new Error(`could not list demo portal users: ${list.status} ${list.text}`);
  return id;
}

/** A keep-alive client to `baseUrl`, closed with everything else `started`. */
export function clientFor(started, label, baseUrl, maxSockets) {
  const client = createClient(baseUrl, { maxSockets });
  started.push({ label, stop: async () => client.close() });
  return client;
}

/** Launches bench/servers/<file> with `env` on a free port; `ready()` waits for its ready line. */
export async function launchSideServer(started, { label, file, root, env }) {
  const port = await freePort();
  const handle = launch(label, process.execPath, [join(SERVERS, file)], {
    cwd: root,
    env: { ...process.env, PORT: String(port), ...env },
  });
  started.push(handle);
  return {
    handle,
    pid: handle.pid,
    url: `http://127.0.0.1:${port}`,
    ready: () => handle.waitForLine(/^ready (\d+)/),
  };
}

/**
 * The Redis variants (A+redis, C+redis, E+rl+redis) need a redis-server of the bench's own and
 * real Postgres (the embedded default keeps its budgets in process memory, and its database
 * cannot be shared with a second server process). Resolves `{ redisUrl, replica }`, or `{}` with
 * a line in `skipped` saying why not.
 */
export async function startRedisReplica(ctx, redisScenarios) {
  const { main, started, skipped } = ctx;
  const hasRedis = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
  if (main.engine !== 'postgres' || !hasRedis) {
    skipped.push(
      `${redisScenarios.join(', ')} not run: ${main.engine !== 'postgres' ? 'they need DATABASE_URL (the embedded default keeps its budgets in process memory)' : 'redis-server is not installed'}.`,
    );
    return {};
  }
  const redisPort = await freePort();
  const redis = launch('redis', 'redis-server', [
    '--port',
    String(redisPort),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
  started.push(redis);
  await redis.waitForLine(/Ready to accept connections/);
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  log(`redis: ${redisUrl} (pid ${redis.pid})`);
  const replica = await startReplica(ctx, 'server-redis', { REDIS_URL: redisUrl });
  return { redisUrl, replica };
}

/** Sampling of the tracing scenarios: A on replicas exporting spans, at ratio 1.0 and 0.1. */
export const TRACE_SAMPLING = { 'A+trace1': '1.0', 'A+trace0.1': '0.1' };

/**
 * A+trace1 and A+trace0.1: A on replicas (same database) exporting every span over OTLP/HTTP to
 * a sink process of the bench's own, sampling 1.0 and 0.1 (root spans by trace-id ratio). A
 * itself is the server with tracing off (no OTEL_* variables: the SDK is never loaded).
 * Resolves `{ [key]: replica with its client }`.
 */
export async function startTracingReplicas(ctx, traceScenarios) {
  const { main, started, skipped, root } = ctx;
  if (main.engine !== 'postgres') {
    skipped.push(
      `${traceScenarios.join(', ')} not run: they need DATABASE_URL (a replica over the same database).`,
    );
    return {};
  }
  const sink = await launchSideServer(started, { label: 'otlp sink', file: 'otlp-sink.mjs', root });
  await sink.ready();
  const traced = {};
  for (const key of traceScenarios) {
    const replica = await startReplica(ctx, `server-${key}`, {
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: TRACE_SAMPLING[key],
    });
    traced[key] = { ...replica, client: clientFor(started, `${key} client`, replica.baseUrl, 2) };
  }
  return traced;
}

/** A second server process over the main one's database, with `extraEnv`. */
function startReplica({ root, work, serverNodeArgs, started, main }, label, extraEnv) {
  return startServer({
    label,
    root,
    work,
    serverNodeArgs,
    started,
    replicaOf: { ...main, label: 'server' },
    extraEnv,
  });
}

/**
 * BENCH_BASELINE: another checkout's build beside this one, over a database of its own; checks its
 * A answers, and resolves it with its portal user and A request (`reqA(token, id)` builds one).
 */
export async function startBaseline({ work, started }, baselineRoot, reqA, toolOutcome) {
  const b = await startServer({
    label: 'baseline',
    root: baselineRoot,
    work,
    serverNodeArgs: [],
    started,
  });
  const bClient = clientFor(started, 'baseline client', b.baseUrl, 2);
  const id = await demoPortalUser(bClient, b.token);
  const reqABase = reqA(b.token, id);
  const check = toolOutcome((await bClient.request('POST', '/mcp', reqABase)).json);
  if (check.kind !== 'ok' || check.value?.id !== id)
    throw new Error(`baseline A does not answer as expected: ${JSON.stringify(check)}`);
  return { ...b, id, reqA: reqABase };
}

/** Creates `needed` portal users through the REST API (for G and H to delete); resolves their ids. */
export async function createPortalUsers({ client, main, options }, needed) {
  const { token } = main;
  const created = [];
  if (needed === 0) return created;
  const stamp = Date.now().toString(36);
  const t0 = Date.now();
  const results = await pool(
    Array.from({ length: needed }, (_, i) => i),
    options.connections,
    (i) =>
      client.request('POST', '/v1/portal-users', {
        headers: { authorization: `Bearer ${token}` },
        body: {
          email: `bench-${stamp}-${i}@example.com`,
          name: `Bench User ${i}`,
          send_invitation: false,
        },
      }),
  );
  for (const r of results) {
    if (r.status !== 201 || typeof r.json?.id !== 'string')
      throw new Error(`creating a portal user: ${r.status} ${r.text}`);
    created.push(r.json.id);
  }
  log(
    `created ${created.length} portal users through POST /v1/portal-users in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  return created;
}

/**
 * How `npm run start:prod` starts the server in `root` (its package.json): the environment it
 * sets (MALLOC_ARENA_MAX) and node's flags (the V8 heap cap), so the server is measured as users
 * run it (the Dockerfile sets the same; test/ops/compose-and-image.spec.ts checks they agree).
 */
export function startProdCommand(root) {
  const script = readJson(join(root, 'package.json')).scripts?.['start:prod'] ?? '';
  const words = script.split(/\s+/).filter((w) => w !== '');
  const node = words.indexOf('node');
  if (node < 0) return { env: {}, nodeArgs: [], text: 'node' };
  const env = Object.fromEntries(
    words.slice(0, node).flatMap((w) => {
      const m = /^([A-Za-z_]\w*)=(.*)$/.exec(w);
      return m === null ? [] : [[m[1], m[2]]];
    }),
  );
  const nodeArgs = words.slice(node + 1).filter((w) => w.startsWith('-'));
  return { env, nodeArgs, text: [...words.slice(0, node + 1), ...nodeArgs].join(' ') };
}

/** The installed version of a package (read from node_modules: not every package exports it). */
export function packageVersion(root, name) {
  try {
    return JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8'))
      .version;
  } catch {
    return '?';
  }
}

export function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}
