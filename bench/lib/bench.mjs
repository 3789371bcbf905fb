// The benchmark itself (used by bench/run.mjs and bench/profile.mjs), in four steps:
//   setup.mjs      the BUILT server in production mode as a child process, the floor (D) and the
//                  SDK (E) servers beside it, the Redis and tracing replicas, the baseline build;
//   scenarios.mjs  the requests, the check that every scenario answers correctly, the table;
//   measure.mjs    warm-up and interleaved rounds (workloads.mjs: G, H, A1/C1);
//   ratios.mjs     the ratios, notes and machine; report.mjs renders them.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { legacyInitialize, toolOutcome } from './mcp.mjs';
import { measureRounds } from './measure.mjs';
import { memoryOf } from './processes.mjs';
import { computeRatios, machineDescription, runNotes } from './ratios.mjs';
import { aggregate } from './report.mjs';
import { checkScenarios, getPortalUserModern, requestsFor, scenarioTable } from './scenarios.mjs';
import {
  clientFor,
  createPortalUsers,
  demoPortalUser,
  launchSideServer,
  startBaseline,
  startRedisReplica,
  startServer,
  startTracingReplicas,
} from './setup.mjs';
import { confirmationWorkloads, serialPairWorkload } from './workloads.mjs';

export { optionsFromEnv } from './options.mjs';
export { startProdCommand, readJson } from './setup.mjs';

/**
 * Runs everything; resolves `{ scenarios, results, env, ratios, notes, replay, memory, summary,
 * windows, serverPid }`.
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
  const ctx = await setUp({ root, options, serverNodeArgs, started, baselineRoot });
  const scenarios = scenarioTable(ctx);
  const { main, floor, sdk } = ctx;

  const created = await createPortalUsers(ctx, portalUsersNeeded(options));
  const confirmations = confirmationWorkloads({ ...ctx, token: main.token, created });
  const serialPair = serialPairWorkload({
    serialClient: clientFor(started, 'serial client', main.baseUrl, 1),
    reqA: ctx.reqs.reqA,
    token: main.token,
    portalUserId: ctx.portalUserId,
  });
  const { results, windows } = await measureRounds({
    scenarios,
    options,
    engine: main.engine,
    workloads: { ...confirmations, serialPair },
    timeLeft: () => deadline - Date.now(),
  });

  const memory = memoryOf(main.server.pid);
  const sideMemory = { floor: memoryOf(floor.pid), sdk: memoryOf(sdk.pid) };
  const when = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    scenarios,
    results,
    ratios: computeRatios(results, main.engine),
    notes: runNotes({
      ...ctx,
      replay: confirmations.replay,
      memory,
      sideMemory,
      engine: main.engine,
    }),
    replay: confirmations.replay,
    memory,
    env: {
      engine: main.engine,
      when,
      machine: machineDescription(root, main.engineVersion),
      ...options,
    },
    summary: Object.fromEntries(Object.entries(results).map(([k, runs]) => [k, aggregate(runs)])),
    windows,
    serverPid: main.server.pid,
  };
}

/** Portal users G and H delete: each round's and the warm-up's, plus one per H replay check. */
function portalUsersNeeded(options) {
  const sets = options.rounds + 1; // + the warm-up
  const wants = (k) => options.scenarios.includes(k);
  return (
    (wants('G') ? options.gPerRound * sets : 0) + (wants('H') ? (options.hPerRound + 1) * sets : 0)
  );
}

/**
 * Starts every process the scenarios need and checks each answers; resolves the context the
 * scenario table and the workloads read.
 */
async function setUp({ root, options, serverNodeArgs, started, baselineRoot }) {
  const work = await mkdtemp(join(os.tmpdir(), 'platform-bench-'));
  started.push({ label: 'temp dir', stop: () => rm(work, { recursive: true, force: true }) });
  const ctx = { root, options, serverNodeArgs, started, work, skipped: [] };

  const main = await startServer({ label: 'server', root, work, serverNodeArgs, started });
  ctx.main = main;
  const { baseUrl, token, engine, databaseUrl } = main;
  ctx.client = clientFor(started, 'http client', baseUrl, options.connections);
  ctx.burst = clientFor(started, 'burst client', baseUrl, options.replays);

  ctx.portalUserId = await demoPortalUser(ctx.client, token);
  ctx.reqs = requestsFor(token, ctx.portalUserId);

  // The 2025 handshake B's requests follow (stateless: the server keeps nothing, so once suffices).
  for (const step of legacyInitialize(token)) {
    const r = await ctx.client.request('POST', '/mcp', step);
    if (r.status !== 200 && r.status !== 202)
      throw new Error(`2025 handshake failed: ${r.status} ${r.text}`);
  }

  ctx.answerA = await ctx.client.request('POST', '/mcp', ctx.reqs.reqA);
  ctx.restRow = await ctx.client.request('GET', `/v1/portal-users/${ctx.portalUserId}`, {
    headers: { authorization: `Bearer ${token}` },
  });

  // D and E in their own processes (D started first, both waited for after the replicas).
  ctx.floor = await launchSideServer(started, {
    label: 'floor (D)',
    file: 'floor.mjs',
    root,
    env: { FLOOR_RESPONSE: ctx.answerA.text },
  });
  const wants = (k) => options.scenarios.includes(k);
  const redisScenarios = ['A+redis', 'C+redis', 'E+rl+redis'].filter(wants);
  const { redisUrl, replica } =
    redisScenarios.length > 0 ? await startRedisReplica(ctx, redisScenarios) : {};
  ctx.replica = replica;
  const traceScenarios = ['A+trace1', 'A+trace0.1'].filter(wants);
  ctx.traced = traceScenarios.length > 0 ? await startTracingReplicas(ctx, traceScenarios) : {};
  ctx.replicaClient =
    replica === undefined ? undefined : clientFor(started, 'replica client', replica.baseUrl, 2);

  ctx.sdk = await launchSideServer(started, {
    label: 'sdk (E)',
    file: 'sdk.mjs',
    root,
    // Same pool as the server: 10 on Postgres, 1 on the embedded engine (ADR 0003: one session).
    env: {
      DATABASE_URL: databaseUrl,
      DB_POOL_SIZE: engine === 'embedded' ? '1' : '10',
      ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl }),
    },
  });
  await ctx.floor.ready();
  await ctx.sdk.ready();
  ctx.floorClient = clientFor(started, 'floor client', ctx.floor.url, 2);
  ctx.sdkClient = clientFor(started, 'sdk client', ctx.sdk.url, 2);

  await checkScenarios(ctx);

  // The baseline build, side by side.
  if (baselineRoot !== undefined)
    ctx.base = await startBaseline(ctx, baselineRoot, getPortalUserModern, toolOutcome);
  return ctx;
}
