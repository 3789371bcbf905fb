// The benchmark itself (used by bench/run.mjs and bench/profile.mjs): starts the BUILT server in
// production mode as a child process, the floor (D) and the SDK (E) servers beside it, checks every
// scenario answers correctly, then measures them in interleaved rounds.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { createClient, pool } from './http.mjs';
import { median, percentile, runAutocannon, runCustom } from './load.mjs';
import {
  deleteAccept,
  deleteAsk,
  LEGACY,
  legacyInitialize,
  legacyRequest,
  modernRequest,
  toolOutcome,
} from './mcp.mjs';
import {
  freePort,
  freshDatabase,
  launch,
  listeningPorts,
  log,
  memoryOf,
  pidsNamed,
  waitForHttp,
} from './processes.mjs';
import { aggregate, pairedDiff, pairedRatio } from './report.mjs';

function intEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`${name} must be a positive number, got ${raw}`);
  return n;
}

export function optionsFromEnv() {
  return {
    rounds: intEnv('BENCH_ROUNDS', 3),
    seconds: intEnv('BENCH_SECONDS', 5),
    warmupSeconds: intEnv('BENCH_WARMUP_SECONDS', 2),
    serialSeconds: intEnv('BENCH_SERIAL_SECONDS', 4),
    connections: intEnv('BENCH_CONNECTIONS', 16),
    gPerRound: intEnv('BENCH_G_PER_ROUND', 150),
    hPerRound: intEnv('BENCH_H_PER_ROUND', 100),
    replays: intEnv('BENCH_H_REPLAYS', 50),
    maxSeconds: intEnv('BENCH_MAX_SECONDS', 420),
    scenarios: (
      process.env.BENCH_SCENARIOS ??
      'A,B,C,D,E,E+rl,A+redis,C+redis,E+rl+redis,A+trace1,A+trace0.1,F,G,H,A1,C1'
    )
      .split(',')
      .map((s) => s.trim()),
  };
}

const RATE_LIMIT = '100000000';
const SERVERS = fileURLToPath(new URL('../servers/', import.meta.url));

/**
 * Runs everything; resolves `{ scenarios, results, env, ratios, notes, replay, memory }`.
 * `serverNodeArgs`: extra node flags for the server (the profiler passes --cpu-prof).
 * `started`: the list the caller stops on exit (children, temp dir, database), in reverse order.
 */
/**
 * Starts one built server (`root`/dist) in production mode on a free loopback port, over a fresh
 * database (DATABASE_URL's Postgres) or the embedded one under a temp DATA_DIR; resolves its URL,
 * pid, owner token and the URL a second process can reach its database at.
 */
async function startBuiltServer({
  label,
  root,
  work,
  serverNodeArgs,
  started,
  /** Another replica: this database (already migrated and seeded) and this token. */
  replicaOf,
  extraEnv = {},
}) {
  const MAIN = join(root, 'dist/apps/server/src/main.js');
  const MIGRATE = join(root, 'dist/apps/server/src/migrate.js');
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  const port = await freePort();
  const prod = startProdCommand(root);
  const env = {
    ...process.env,
    ...prod.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: join(work, `data-${label}`),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_IP_PER_MINUTE: RATE_LIMIT,
    RATE_LIMIT_PER_TOKEN_PER_MINUTE: RATE_LIMIT,
    ...extraEnv,
  };
  delete env.NODE_OPTIONS;
  delete env.PUBLIC_BASE_URL;
  delete env.MCP_ALLOWED_ORIGINS;

  let engine;
  let engineVersion;
  let databaseUrl;
  if (replicaOf !== undefined) {
    env.DATABASE_URL = replicaOf.databaseUrl;
    env.SEED_DEMO = 'false';
    env.SERVER_SECRET_KEYS ??= `bench-${'k'.repeat(40)}`;
    ({ engine, engineVersion, databaseUrl } = replicaOf);
    const server = launch(label, process.execPath, [...prod.nodeArgs, ...serverNodeArgs, MAIN], {
      cwd: root,
      env,
    });
    started.push(server);
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitForHttp(server, `${baseUrl}/health/ready`);
    log(`${label}: ${baseUrl} (pid ${server.pid}, same database as ${replicaOf.label})`);
    return { server, baseUrl, token: replicaOf.token, engine, engineVersion, databaseUrl };
  }
  if (process.env.DATABASE_URL) {
    const db = await freshDatabase(process.env.DATABASE_URL);
    started.push({ label: `database (${label})`, stop: db.drop });
    env.DATABASE_URL = db.url;
    env.SEED_DEMO = 'true';
    env.SERVER_SECRET_KEYS ??= `bench-${'k'.repeat(40)}`;
    engine = 'postgres';
    engineVersion = db.version.split(' on ')[0];
    databaseUrl = db.url;
    log(`${label}: fresh database ${db.name} on ${new URL(process.env.DATABASE_URL).host}`);
    const migrate = launch('migrate', process.execPath, [MIGRATE, 'up'], { cwd: root, env });
    const { code } = await migrate.exited;
    if (code !== 0) throw new Error(`migrations failed:\n${migrate.tail()}`);
  } else {
    delete env.DATABASE_URL;
    engine = 'embedded';
    engineVersion = `PGlite ${packageVersion(root, '@electric-sql/pglite')} (in the server process)`;
    log(`${label}: embedded Postgres (PGlite) under a temporary DATA_DIR`);
  }

  const tokensFile = join(env.DATA_DIR, 'demo-tokens.json');
  const server = launch(label, process.execPath, [...prod.nodeArgs, ...serverNodeArgs, MAIN], {
    cwd: root,
    env,
  });
  started.push(server);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(server, `${baseUrl}/health/ready`, { ready: () => existsSync(tokensFile) });
  const { tokens } = JSON.parse(await readFile(tokensFile, 'utf8'));
  log(`${label}: ${baseUrl} (pid ${server.pid}, ${root}, NODE_ENV=production, LOG_LEVEL=warn)`);

  if (engine === 'embedded') {
    const pglitePort = listeningPorts(server.pid).find((p) => p !== port);
    if (pglitePort === undefined) throw new Error('could not find the embedded Postgres port');
    databaseUrl = `postgres://postgres@127.0.0.1:${pglitePort}/postgres`;
  }
  return { server, baseUrl, token: tokens.owner, engine, engineVersion, databaseUrl };
}

/** A real demo portal user (an active one) of a running server. */
async function demoPortalUser(client, token) {
  const list = await client.request('GET', '/v1/portal-users?status=active&limit=1', {
    headers: { authorization: `Bearer ${token}` },
  });
  const id = list.json?.data?.[0]?.id;
  if (list.status !== 200 || typeof id !== 'string')
    throw new Error(`could not list demo portal users: ${list.status} ${list.text}`);
  return id;
}

/**
 * Runs everything; resolves `{ scenarios, results, env, ratios, notes, replay, memory }`.
 * `serverNodeArgs`: extra node flags for the server (the profiler passes --cpu-prof).
 * `started`: the list the caller stops on exit (children, temp dir, database), in reverse order.
 * `baselineRoot`: another checkout with a built dist; its A and C run side by side as A@base, C@base.
 */
export async function runBench({
  root,
  options,
  serverNodeArgs = [],
  started,
  deadline,
  baselineRoot,
}) {
  const timeLeft = () => deadline - Date.now();
  const work = await mkdtemp(join(os.tmpdir(), 'platform-bench-'));
  started.push({ label: 'temp dir', stop: () => rm(work, { recursive: true, force: true }) });

  const main = await startBuiltServer({ label: 'server', root, work, serverNodeArgs, started });
  const { server, baseUrl, token, engine, engineVersion, databaseUrl } = main;
  const dbPids = engine === 'postgres' ? () => pidsNamed('postgres') : () => [];

  const client = createClient(baseUrl, { maxSockets: options.connections });
  const burst = createClient(baseUrl, { maxSockets: options.replays });
  started.push({ label: 'http clients', stop: async () => (client.close(), burst.close()) });

  const portalUserId = await demoPortalUser(client, token);

  const reqA = modernRequest(token, 1, 'tools/call', {
    name: 'get_portal_user',
    arguments: { id: portalUserId },
  });
  const reqB = legacyRequest(token, 1, 'tools/call', {
    name: 'get_portal_user',
    arguments: { id: portalUserId },
  });
  const reqF = modernRequest(token, 1, 'tools/list');

  // The 2025 handshake B's requests follow (stateless: the server keeps nothing, so once suffices).
  for (const step of legacyInitialize(token)) {
    const r = await client.request('POST', '/mcp', step);
    if (r.status !== 200 && r.status !== 202)
      throw new Error(`2025 handshake failed: ${r.status} ${r.text}`);
  }

  const answerA = await client.request('POST', '/mcp', reqA);
  const restRow = await client.request('GET', `/v1/portal-users/${portalUserId}`, {
    headers: { authorization: `Bearer ${token}` },
  });

  // ------------------------------------------------------------- D and E, in their own processes
  const floorPort = await freePort();
  const floor = launch('floor (D)', process.execPath, [join(SERVERS, 'floor.mjs')], {
    cwd: root,
    env: { ...process.env, PORT: String(floorPort), FLOOR_RESPONSE: answerA.text },
  });
  started.push(floor);
  // ------------------------------------------------------------- Redis, and a replica using it
  // The Redis variants (A+redis, C+redis, E+rl+redis) need a redis-server of the bench's own and
  // real Postgres (the embedded default keeps its budgets in process memory, and its database
  // cannot be shared with a second server process).
  const wants = (k) => options.scenarios.includes(k);
  const redisScenarios = ['A+redis', 'C+redis', 'E+rl+redis'].filter(wants);
  let redisUrl;
  let replica;
  const skipped = [];
  if (redisScenarios.length > 0) {
    const hasRedis = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
    if (engine !== 'postgres' || !hasRedis) {
      skipped.push(
        `${redisScenarios.join(', ')} not run: ${engine !== 'postgres' ? 'they need DATABASE_URL (the embedded default keeps its budgets in process memory)' : 'redis-server is not installed'}.`,
      );
    } else {
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
      redisUrl = `redis://127.0.0.1:${redisPort}`;
      log(`redis: ${redisUrl} (pid ${redis.pid})`);
      replica = await startBuiltServer({
        label: 'server-redis',
        root,
        work,
        serverNodeArgs,
        started,
        replicaOf: { ...main, label: 'server' },
        extraEnv: { REDIS_URL: redisUrl },
      });
    }
  }
  // ------------------------------------------------------------- tracing replicas
  // A+trace1 and A+trace0.1: A on replicas (same database) exporting every span over OTLP/HTTP to
  // a sink process of the bench's own, sampling 1.0 and 0.1 (root spans by trace-id ratio). A
  // itself is the server with tracing off (no OTEL_* variables: the SDK is never loaded).
  const TRACE_SAMPLING = { 'A+trace1': '1.0', 'A+trace0.1': '0.1' };
  const traceScenarios = Object.keys(TRACE_SAMPLING).filter(wants);
  const traced = {};
  if (traceScenarios.length > 0) {
    if (engine !== 'postgres') {
      skipped.push(
        `${traceScenarios.join(', ')} not run: they need DATABASE_URL (a replica over the same database).`,
      );
    } else {
      const sinkPort = await freePort();
      const sink = launch('otlp sink', process.execPath, [join(SERVERS, 'otlp-sink.mjs')], {
        cwd: root,
        env: { ...process.env, PORT: String(sinkPort) },
      });
      started.push(sink);
      await sink.waitForLine(/^ready (\d+)/);
      for (const key of traceScenarios) {
        const tracedServer = await startBuiltServer({
          label: `server-${key}`,
          root,
          work,
          serverNodeArgs,
          started,
          replicaOf: { ...main, label: 'server' },
          extraEnv: {
            OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}`,
            OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
            OTEL_TRACES_SAMPLER_ARG: TRACE_SAMPLING[key],
          },
        });
        const tracedClient = createClient(tracedServer.baseUrl, { maxSockets: 2 });
        started.push({ label: `${key} client`, stop: async () => tracedClient.close() });
        traced[key] = { ...tracedServer, client: tracedClient };
      }
    }
  }
  const replicaClient =
    replica === undefined ? undefined : createClient(replica.baseUrl, { maxSockets: 2 });
  if (replicaClient !== undefined)
    started.push({ label: 'replica client', stop: async () => replicaClient.close() });

  const sdkPort = await freePort();
  const sdk = launch('sdk (E)', process.execPath, [join(SERVERS, 'sdk.mjs')], {
    cwd: root,
    // Same pool as the server: 10 on Postgres, 1 on the embedded engine (ADR 0003: one session).
    env: {
      ...process.env,
      PORT: String(sdkPort),
      DATABASE_URL: databaseUrl,
      DB_POOL_SIZE: engine === 'embedded' ? '1' : '10',
      ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl }),
    },
  });
  started.push(sdk);
  await floor.waitForLine(/^ready (\d+)/);
  await sdk.waitForLine(/^ready (\d+)/);
  const floorUrl = `http://127.0.0.1:${floorPort}`;
  const sdkUrl = `http://127.0.0.1:${sdkPort}`;
  const floorClient = createClient(floorUrl, { maxSockets: 2 });
  const sdkClient = createClient(sdkUrl, { maxSockets: 2 });
  started.push({
    label: 'side clients',
    stop: async () => (floorClient.close(), sdkClient.close()),
  });

  // ------------------------------------------------------------- every scenario answers correctly
  const expected = restRow.json;
  const checks = {
    A: async () => {
      const r = await client.request('POST', '/mcp', reqA);
      const o = toolOutcome(r.json);
      return (
        r.status === 200 &&
        o.kind === 'ok' &&
        isDeepStrictEqual(o.value, expected) &&
        isDeepStrictEqual(JSON.parse(r.json.result.content[0].text), expected) &&
        r.json.result.resultType === 'complete'
      );
    },
    B: async () => {
      const r = await client.request('POST', '/mcp', reqB);
      const o = toolOutcome(r.json);
      return (
        r.status === 200 &&
        o.kind === 'ok' &&
        isDeepStrictEqual(o.value, expected) &&
        isDeepStrictEqual(JSON.parse(r.json.result.content[0].text), expected) &&
        r.json.result.resultType === undefined
      );
    },
    C: async () => restRow.status === 200 && expected?.id === portalUserId,
    D: async () => {
      const r = await floorClient.request('POST', '/mcp', reqA);
      return r.status === 200 && r.text.length === answerA.text.length;
    },
    E: async () => {
      const r = await sdkClient.request('POST', '/mcp', reqA);
      const o = toolOutcome(r.json);
      return r.status === 200 && o.kind === 'ok' && isDeepStrictEqual(o.value, expected);
    },
    'E+rl': async () => {
      const r = await sdkClient.request('POST', '/mcp-limited', reqA);
      const o = toolOutcome(r.json);
      return r.status === 200 && o.kind === 'ok' && isDeepStrictEqual(o.value, expected);
    },
    ...Object.fromEntries(
      Object.entries(traced).map(([key, t]) => [
        key,
        async () => {
          const r = await t.client.request('POST', '/mcp', reqA);
          const o = toolOutcome(r.json);
          return r.status === 200 && o.kind === 'ok' && isDeepStrictEqual(o.value, expected);
        },
      ]),
    ),
    ...(replicaClient === undefined
      ? {}
      : {
          'A+redis': async () => {
            const r = await replicaClient.request('POST', '/mcp', reqA);
            const o = toolOutcome(r.json);
            return r.status === 200 && o.kind === 'ok' && isDeepStrictEqual(o.value, expected);
          },
          'C+redis': async () => {
            const r = await replicaClient.request('GET', `/v1/portal-users/${portalUserId}`, {
              headers: { authorization: `Bearer ${token}` },
            });
            return r.status === 200 && isDeepStrictEqual(r.json, expected);
          },
          'E+rl+redis': async () => {
            const r = await sdkClient.request('POST', '/mcp-limited-redis', reqA);
            const o = toolOutcome(r.json);
            return r.status === 200 && o.kind === 'ok' && isDeepStrictEqual(o.value, expected);
          },
        }),
    F: async () => {
      const r = await client.request('POST', '/mcp', reqF);
      return (
        r.status === 200 && Array.isArray(r.json?.result?.tools) && r.json.result.tools.length > 10
      );
    },
  };
  for (const [key, check] of Object.entries(checks)) {
    if (!(await check()))
      throw new Error(`scenario ${key} does not answer as expected; not measuring it`);
  }
  const sdkAnswer = await sdkClient.request('POST', '/mcp', reqA);
  log(
    `checked: A/B/E return portal user ${portalUserId}; answer sizes A ${answerA.text.length} B ${(await client.request('POST', '/mcp', reqB)).text.length} C ${restRow.text.length} D ${answerA.text.length} E ${sdkAnswer.text.length} F ${(await client.request('POST', '/mcp', reqF)).text.length} bytes`,
  );

  // ------------------------------------------------------------- the baseline build, side by side
  let base;
  if (baselineRoot !== undefined) {
    const b = await startBuiltServer({
      label: 'baseline',
      root: baselineRoot,
      work,
      serverNodeArgs: [],
      started,
    });
    const bClient = createClient(b.baseUrl, { maxSockets: 2 });
    started.push({ label: 'baseline client', stop: async () => bClient.close() });
    const id = await demoPortalUser(bClient, b.token);
    const reqABase = modernRequest(b.token, 1, 'tools/call', {
      name: 'get_portal_user',
      arguments: { id },
    });
    const check = toolOutcome((await bClient.request('POST', '/mcp', reqABase)).json);
    if (check.kind !== 'ok' || check.value?.id !== id)
      throw new Error(`baseline A does not answer as expected: ${JSON.stringify(check)}`);
    base = { ...b, id, reqA: reqABase };
  }

  // ------------------------------------------------------------- portal users for G and H
  const sets = options.rounds + 1; // + the warm-up
  const needed =
    (wants('G') ? options.gPerRound * sets : 0) + (wants('H') ? (options.hPerRound + 1) * sets : 0);
  const created = [];
  if (needed > 0) {
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
  }
  const take = (n) => created.splice(0, n);

  // ------------------------------------------------------------- scenarios
  let rpcId = 10;
  const post = (c, body) => c.request('POST', '/mcp', body);
  /** One confirmed delete: ask → input_required → accept with the requestState → deleted. */
  async function confirmedDelete(id) {
    const t0 = process.hrtime.bigint();
    const asked = toolOutcome((await post(client, deleteAsk(token, rpcId++, id))).json);
    if (asked.kind !== 'input_required')
      throw new Error(`G: expected input_required, got ${JSON.stringify(asked)}`);
    const done = toolOutcome(
      (await post(client, deleteAccept(token, rpcId++, id, asked.requestState))).json,
    );
    if (done.kind !== 'ok' || done.value?.deleted !== true)
      throw new Error(`G: expected a deletion, got ${JSON.stringify(done)}`);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  }

  const serverPids = [server.pid];
  const mcp = `${baseUrl}/mcp`;
  const scenarios = [
    {
      key: 'A',
      label: 'tools/call get_portal_user, 2026-07-28 (headers + _meta)',
      target: { url: mcp, method: 'POST', ...reqA },
      pids: serverPids,
      dbCpuIncluded: engine === 'embedded',
    },
    {
      key: 'B',
      label: 'tools/call get_portal_user, 2025-11-25 (after initialize)',
      target: { url: mcp, method: 'POST', ...reqB },
      pids: serverPids,
      dbCpuIncluded: engine === 'embedded',
    },
    {
      key: 'C',
      label: 'GET /v1/portal-users/{id} (what A dispatches to)',
      target: {
        url: `${baseUrl}/v1/portal-users/${portalUserId}`,
        headers: { authorization: `Bearer ${token}` },
      },
      pids: serverPids,
      dbCpuIncluded: engine === 'embedded',
    },
    {
      key: 'D',
      label: 'floor: bare Fastify route, same-sized JSON (own process)',
      target: { url: `${floorUrl}/mcp`, method: 'POST', ...reqA },
      pids: [floor.pid],
      dbCpuIncluded: false,
      noDb: true,
    },
    {
      key: 'E',
      label: 'SDK v2 createMcpHandler + low-level Server, pg (own process)',
      target: { url: `${sdkUrl}/mcp`, method: 'POST', ...reqA },
      pids: [sdk.pid],
      dbCpuIncluded: false,
      embeddedDbPid: engine === 'embedded' ? server.pid : undefined,
    },
    {
      key: 'E+rl',
      label: 'E plus the same two Postgres rate limits as ours (own process)',
      target: { url: `${sdkUrl}/mcp-limited`, method: 'POST', ...reqA },
      pids: [sdk.pid],
      dbCpuIncluded: false,
      embeddedDbPid: engine === 'embedded' ? server.pid : undefined,
    },
    ...Object.entries(traced).map(([key, t]) => ({
      key,
      label: `A with tracing on, sampling ${TRACE_SAMPLING[key]} (a replica exporting OTLP/HTTP)`,
      target: { url: `${t.baseUrl}/mcp`, method: 'POST', ...reqA },
      pids: [t.server.pid],
      dbCpuIncluded: false,
    })),
    ...(replica === undefined
      ? []
      : [
          {
            key: 'A+redis',
            label: 'A on a replica with REDIS_URL (both budgets in Redis)',
            target: { url: `${replica.baseUrl}/mcp`, method: 'POST', ...reqA },
            pids: [replica.server.pid],
            dbCpuIncluded: false,
          },
          {
            key: 'C+redis',
            label: 'C on a replica with REDIS_URL (both budgets in Redis)',
            target: {
              url: `${replica.baseUrl}/v1/portal-users/${portalUserId}`,
              headers: { authorization: `Bearer ${token}` },
            },
            pids: [replica.server.pid],
            dbCpuIncluded: false,
          },
          {
            key: 'E+rl+redis',
            label: 'E plus the same two budgets in Redis (own process)',
            target: { url: `${sdkUrl}/mcp-limited-redis`, method: 'POST', ...reqA },
            pids: [sdk.pid],
            dbCpuIncluded: false,
          },
        ]),
    {
      key: 'F',
      label: 'tools/list, 2026-07-28',
      target: { url: mcp, method: 'POST', ...reqF },
      pids: serverPids,
      dbCpuIncluded: engine === 'embedded',
    },
    {
      key: 'G',
      label: 'confirmed delete_portal_user round trips (ask + accept)',
      custom: 'G',
      pids: serverPids,
      dbCpuIncluded: engine === 'embedded',
    },
    {
      key: 'H',
      label: 'consuming distinct confirmations concurrently (accept calls)',
      custom: 'H',
      pids: serverPids,
      dbCpuIncluded: engine === 'embedded',
    },
    {
      key: 'A1',
      label: 'A at 1 connection, alternating with C1 (unloaded latency)',
      serialPair: 'C1',
      pids: serverPids,
      dbCpuIncluded: engine === 'embedded',
      serial: true,
    },
    {
      key: 'C1',
      label: 'C at 1 connection, alternating with A1 (unloaded latency)',
      serialPairOf: 'A1',
      pids: serverPids,
      dbCpuIncluded: engine === 'embedded',
      serial: true,
    },
  ].filter((s) => wants(s.key));
  if (base !== undefined) {
    const withBase = (key, extra) => {
      const i = scenarios.findIndex((s) => s.key === key);
      if (i !== -1)
        scenarios.splice(i + 1, 0, {
          ...scenarios[i],
          ...extra,
          key: `${key}@base`,
          pairOf: key,
          label: `${scenarios[i].label} — baseline build`,
          pids: [base.server.pid],
        });
    };
    withBase('A', { target: { url: `${base.baseUrl}/mcp`, method: 'POST', ...base.reqA } });
    withBase('C', {
      target: {
        url: `${base.baseUrl}/v1/portal-users/${base.id}`,
        headers: { authorization: `Bearer ${base.token}` },
      },
    });
  }

  const replay = [];
  /** H's correctness half: one accepted requestState sent N times at once → 1 success, N-1 replays. */
  async function replayCheck() {
    const [id] = take(1);
    const asked = toolOutcome((await post(client, deleteAsk(token, rpcId++, id))).json);
    if (asked.kind !== 'input_required')
      throw new Error(`H: expected input_required, got ${JSON.stringify(asked)}`);
    const body = deleteAccept(token, rpcId++, id, asked.requestState);
    const answers = await Promise.all(
      Array.from({ length: options.replays }, () => post(burst, body)),
    );
    const tally = {};
    for (const a of answers) {
      const o = toolOutcome(a.json);
      const k =
        o.kind === 'ok' && o.value?.deleted === true
          ? 'deleted'
          : o.kind === 'tool_error'
            ? o.code
            : `${a.status} ${o.kind}`;
      tally[k] = (tally[k] ?? 0) + 1;
    }
    const pass =
      tally.deleted === 1 &&
      tally.confirmation_replayed === options.replays - 1 &&
      Object.keys(tally).length === 2;
    replay.push({ tally, pass, slowestMs: Math.max(...answers.map((a) => a.ms)) });
    log(
      `H replay: one requestState × ${options.replays} concurrent → ${JSON.stringify(tally)} ${pass ? 'PASS' : 'FAIL'}`,
    );
    if (!pass)
      throw new Error(
        `H: expected exactly 1 deletion and ${options.replays - 1} confirmation_replayed, got ${JSON.stringify(tally)}`,
      );
  }

  async function measure(s, seconds, { warm = false, split = 1 } = {}) {
    const sampling = {
      servingPids: s.pids,
      dbPids: s.noDb ? () => [] : s.embeddedDbPid ? () => [s.embeddedDbPid] : dbPids,
    };
    if (s.serialPair !== undefined) return serialPair(seconds);
    if (s.target !== undefined) {
      const connections = s.serial ? 1 : Math.max(1, Math.round(options.connections / split));
      return runAutocannon({ key: s.key, ...s.target }, { connections, seconds, ...sampling });
    }
    if (s.custom === 'G') {
      const ids = take(options.gPerRound);
      const until = Date.now() + seconds * 1000;
      return runCustom(async () => {
        const latencies = await pool(ids, options.connections, confirmedDelete, until);
        return { latencies, count: latencies.length };
      }, sampling);
    }
    // H: ask for N confirmations (untimed), then consume them all concurrently (timed).
    await replayCheck();
    const ids = take(options.hPerRound);
    const states = await pool(ids, options.connections, async (id) => {
      const o = toolOutcome((await post(client, deleteAsk(token, rpcId++, id))).json);
      if (o.kind !== 'input_required')
        throw new Error(`H: expected input_required, got ${JSON.stringify(o)}`);
      return { id, state: o.requestState };
    });
    const result = await runCustom(async () => {
      const outcomes = await pool(states, options.connections, async ({ id, state }) => {
        const r = await post(client, deleteAccept(token, rpcId++, id, state));
        const o = toolOutcome(r.json);
        if (o.kind !== 'ok' || o.value?.deleted !== true)
          throw new Error(`H: expected a deletion, got ${JSON.stringify(o)}`);
        return r.ms;
      });
      return { latencies: outcomes, count: outcomes.length };
    }, sampling);
    if (!warm)
      log(
        `H: consumed ${result.count} distinct confirmations at ${options.connections} concurrent`,
      );
    return result;
  }

  /**
   * A1/C1: one keep-alive connection sending A and C alternately (A C C A A C …), one at a time,
   * so both see the same moment of a noisy machine. Resolves both results and the median of the
   * per-pair latency differences (A − C), the MCP layer's own cost in time without queueing.
   */
  const serialClient = createClient(baseUrl, { maxSockets: 1 });
  started.push({ label: 'serial client', stop: async () => serialClient.close() });
  async function serialPair(seconds) {
    const a = [];
    const c = [];
    const diffs = [];
    const until = Date.now() + seconds * 1000;
    const started = process.hrtime.bigint();
    const callA = async () => {
      const r = await post(serialClient, reqA);
      if (r.status !== 200) throw new Error(`A1: ${r.status} ${r.text}`);
      return r.ms;
    };
    const callC = async () => {
      const r = await serialClient.request('GET', `/v1/portal-users/${portalUserId}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (r.status !== 200) throw new Error(`C1: ${r.status} ${r.text}`);
      return r.ms;
    };
    for (let i = 0; Date.now() < until; i += 1) {
      const first = i % 2 === 0 ? await callA() : await callC();
      const second = i % 2 === 0 ? await callC() : await callA();
      const [ta, tc] = i % 2 === 0 ? [first, second] : [second, first];
      a.push(ta);
      c.push(tc);
      diffs.push(ta - tc);
    }
    const durationS = Number(process.hrtime.bigint() - started) / 1e9;
    const one = (lat) => {
      const sorted = Float64Array.from(lat).sort();
      return {
        count: lat.length,
        durationS,
        rps: 1000 / median(lat), // one connection: requests per second of that request alone
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        mean: lat.reduce((x, y) => x + y, 0) / lat.length,
        servingCpuPerReqUs: NaN, // not separable: both requests share the server meanwhile
        dbCpuPerReqUs: NaN,
        clientCpuPerReqUs: NaN,
      };
    };
    return { A1: one(a), C1: one(c), pairDiffP50: median(diffs) };
  }

  const results = Object.fromEntries(scenarios.map((s) => [s.key, []]));
  /** When each measured run happened, on the monotonic clock V8's CPU profiles use (µs). */
  const windows = [];
  const secondsFor = (s) => (s.serial ? options.serialSeconds : options.seconds);
  log(
    `warm-up: ${options.warmupSeconds} s per scenario (${scenarios.map((s) => s.key).join(' ')})`,
  );
  for (const s of scenarios) {
    if (s.serialPairOf === undefined) await measure(s, options.warmupSeconds, { warm: true });
  }

  const perRound = scenarios
    .filter((s) => s.serialPairOf === undefined)
    .reduce((a, s) => a + secondsFor(s) + 0.5, 0);
  for (let round = 1; round <= options.rounds; round += 1) {
    if (timeLeft() < perRound * 1000 + 20_000) {
      log(`round ${round}: skipped, the time budget (BENCH_MAX_SECONDS) would run out`);
      break;
    }
    const line = [];
    // Counterbalanced: odd rounds run the scenarios in order, even rounds in reverse, so no
    // scenario always follows the same neighbour (warm caches, a just-flushed history batch).
    const order = round % 2 === 1 ? scenarios : scenarios.toReversed();
    for (const s of order) {
      if (s.pairOf !== undefined || s.serialPairOf !== undefined) continue; // run with its pair
      if (s.serialPair !== undefined) {
        const from = process.hrtime.bigint();
        const r = await serialPair(secondsFor(s));
        const to = Number(process.hrtime.bigint() / 1000n);
        for (const k of ['A1', 'C1']) {
          windows.push({ key: k, fromUs: Number(from / 1000n), toUs: to });
          results[k].push({ ...r[k], pairDiffP50: r.pairDiffP50 });
        }
        line.push(`A1−C1 ${r.pairDiffP50.toFixed(2)} ms`);
        continue;
      }
      // A baseline pair runs at the same time as its scenario (same load, same noise, same
      // neighbours), each side at half the connections.
      const pair = scenarios.find((p) => p.pairOf === s.key);
      const from = process.hrtime.bigint();
      const runs = pair === undefined ? [s] : round % 2 === 1 ? [s, pair] : [pair, s];
      const rs = await Promise.all(
        runs.map((x) => measure(x, secondsFor(x), { split: runs.length })),
      );
      const to = Number(process.hrtime.bigint() / 1000n);
      runs.forEach((x, i) => {
        windows.push({ key: x.key, fromUs: Number(from / 1000n), toUs: to });
        results[x.key].push(rs[i]);
        line.push(`${x.key} ${Math.round(rs[i].rps)}/s p50 ${rs[i].p50.toFixed(2)}`);
      });
    }
    log(`round ${round}: ${line.join(' · ')}`);
  }

  const memory = memoryOf(server.pid);
  const sideMemory = { floor: memoryOf(floor.pid), sdk: memoryOf(sdk.pid) };

  // ------------------------------------------------------------- ratios and targets
  const ratios = [];
  const has = (k) => (results[k]?.length ?? 0) > 0;
  const x = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '–');
  if (has('A') && has('C')) {
    const rps = pairedRatio(results, 'A', 'C');
    const p50 = pairedDiff(results, 'A', 'C', 'p50');
    const cpu = pairedDiff(results, 'A', 'C', 'servingCpuPerReqUs');
    ratios.push({
      label: 'A/C throughput (MCP vs the direct REST call)',
      text: `${x(rps)} (target ≥ 0.85×: ${rps >= 0.85 ? 'met' : 'NOT met'})`,
    });
    ratios.push({
      label: 'A − C p50 at 16 connections (saturated: queueing included)',
      text: `${p50.toFixed(2)} ms`,
    });
    ratios.push({
      label: "A − C server CPU per request (the MCP layer's own work)",
      text: `${cpu.toFixed(0)} µs`,
    });
  }
  if (has('A1') && has('C1')) {
    const p50 = median(results.A1.map((r) => r.pairDiffP50));
    ratios.push({
      label: 'A1 − C1 at 1 connection, median of per-pair differences (MCP overhead, unloaded)',
      text: `${p50.toFixed(2)} ms (target ≤ 0.3 ms: ${p50 <= 0.3 ? 'met' : 'NOT met'})`,
    });
  }
  if (has('A') && has('D')) {
    ratios.push({
      label: 'A/D throughput (against the floor)',
      text: x(pairedRatio(results, 'A', 'D')),
    });
    ratios.push({
      label: 'A/D server CPU per request',
      text: x(pairedRatio(results, 'A', 'D', 'servingCpuPerReqUs')),
    });
  }
  if (has('A') && has('E')) {
    const rps = pairedRatio(results, 'A', 'E');
    ratios.push({
      label: 'A/E throughput (ours vs the official SDK v2)',
      text: `${x(rps)} (target ≥ 1.2×: ${rps >= 1.2 ? 'met' : 'NOT met'})`,
    });
    const total = (k) =>
      results[k].map(
        (r) => r.servingCpuPerReqUs + (engine === 'embedded' && k === 'A' ? 0 : r.dbCpuPerReqUs),
      );
    const ta = total('A');
    const te = total('E');
    const cpuRatios = ta.map((v, i) => v / te[i]).sort((a, b) => a - b);
    ratios.push({
      label: 'A/E total CPU per request (app + database)',
      text: x(cpuRatios[Math.floor(cpuRatios.length / 2)]),
    });
  }
  for (const k of ['A', 'C']) {
    if (has(k) && has(`${k}@base`)) {
      ratios.push({
        label: `${k} this build / baseline build, throughput`,
        text: x(pairedRatio(results, k, `${k}@base`)),
      });
      ratios.push({
        label: `${k} this build − baseline build, server CPU per request`,
        text: `${pairedDiff(results, k, `${k}@base`, 'servingCpuPerReqUs').toFixed(0)} µs`,
      });
    }
  }
  if (has('A') && has('E+rl')) {
    ratios.push({
      label: 'A/(E+rl) throughput (ours vs the SDK doing the same rate limiting)',
      text: x(pairedRatio(results, 'A', 'E+rl')),
    });
  }
  if (has('A+redis') && has('C+redis')) {
    const rps = pairedRatio(results, 'A+redis', 'C+redis');
    ratios.push({
      label: 'A/C throughput with Redis budgets (MCP vs the direct REST call)',
      text: `${x(rps)} (target ≥ 0.85×: ${rps >= 0.85 ? 'met' : 'NOT met'})`,
    });
  }
  if (has('A+redis') && has('E')) {
    const rps = pairedRatio(results, 'A+redis', 'E');
    ratios.push({
      label: 'A(Redis)/E throughput (ours with both budgets vs the SDK with none)',
      text: `${x(rps)} (target ≥ 1.2×: ${rps >= 1.2 ? 'met' : 'NOT met'})`,
    });
  }
  if (has('A+redis') && has('E+rl+redis')) {
    const rps = pairedRatio(results, 'A+redis', 'E+rl+redis');
    ratios.push({
      label: 'A/(E+rl) throughput, both with the same Redis budgets',
      text: `${x(rps)} (target ≥ 1.5×: ${rps >= 1.5 ? 'met' : 'NOT met'})`,
    });
  }
  for (const key of ['A+trace1', 'A+trace0.1']) {
    if (!has('A') || !has(key)) continue;
    const rps = pairedRatio(results, key, 'A');
    const target =
      key === 'A+trace1' ? ` (target ≥ 0.85×: ${rps >= 0.85 ? 'met' : 'NOT met'})` : '';
    ratios.push({
      label: `${key}/A throughput (tracing on vs off)`,
      text: `${x(rps)}${target}`,
    });
    ratios.push({
      label: `${key} − A server CPU per request (the cost of tracing)`,
      text: `${pairedDiff(results, key, 'A', 'servingCpuPerReqUs').toFixed(0)} µs`,
    });
  }
  if (has('B') && has('A'))
    ratios.push({
      label: 'B/A throughput (2025 era vs 2026-07-28)',
      text: x(pairedRatio(results, 'B', 'A')),
    });

  const notes = [...skipped];
  if (replay.length > 0) {
    const all = replay.every((r) => r.pass);
    notes.push(
      `H replay check, every round: one accepted \`requestState\` sent ${options.replays}× concurrently → ${replay.map((r) => JSON.stringify(r.tally)).join(', ')}: ${all ? 'exactly one deletion and the rest `confirmation_replayed`, as required' : 'FAILED'}.`,
    );
  }
  notes.push(
    `Server RSS after the run: ${memory.rssMiB.toFixed(0)} MiB (peak ${memory.peakMiB.toFixed(0)} MiB)${engine === 'embedded' ? ', PGlite included' : ''}; floor ${sideMemory.floor.rssMiB.toFixed(0)} MiB; SDK ${sideMemory.sdk.rssMiB.toFixed(0)} MiB.`,
  );

  const pkg = (name) => packageVersion(root, name);
  const machine = {
    CPUs: `${os.availableParallelism?.() ?? os.cpus().length} (nproc), ${os.cpus()[0]?.model ?? '?'}`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    node: process.version,
    'server command': `${startProdCommand(root).text} (npm run start:prod)`,
    database: engineVersion,
    packages: [
      'fastify',
      '@nestjs/core',
      '@nestjs/platform-fastify',
      'typeorm',
      'pg',
      'nestjs-cls',
      'nestjs-pino',
      'pino',
      'rate-limiter-flexible',
      '@modelcontextprotocol/server',
      '@modelcontextprotocol/node',
      'autocannon',
    ]
      .map((n) => `${n} ${pkg(n)}`)
      .join(', '),
    'load generator': `autocannon in the benchmark process (A–F), node:http keep-alive client (G, H); same 2 cores as the servers`,
  };
  const when = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    scenarios,
    results,
    ratios,
    notes,
    replay,
    memory,
    env: { engine, when, machine, ...options },
    summary: Object.fromEntries(Object.entries(results).map(([k, runs]) => [k, aggregate(runs)])),
    windows,
    serverPid: server.pid,
  };
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
function packageVersion(root, name) {
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
