// The scenarios: the requests they send, the check that each answers correctly before it is
// measured, and the table of what runs where (docs/benchmarks.md "Scenarios" describes them).
//
// A scenario is `{ key, label, pids, dbCpuIncluded, … }` plus how it is driven, one of:
// `target` (autocannon: url, method, headers, body), `custom: 'G' | 'H'` (bench/lib/workloads.mjs),
// `serialPair` / `serialPairOf` (A1 and C1, one connection). `pairOf` marks a side that runs at the
// same time as the scenario it names (the baseline build); `noDb` / `embeddedDbPid` say whose
// database CPU it is charged. A new variant (another replica, another mode) is one more entry here,
// one more check in `correctnessChecks`, and its ratios in ratios.mjs.
import { isDeepStrictEqual } from 'node:util';
import { legacyRequest, modernRequest, toolOutcome } from './mcp.mjs';
import { TRACE_SAMPLING } from './setup.mjs';
import { log } from './processes.mjs';

/** A's request: tools/call get_portal_user for `id`, 2026-07-28. */
export function getPortalUserModern(token, id) {
  return modernRequest(token, 1, 'tools/call', { name: 'get_portal_user', arguments: { id } });
}

/** The wire requests of A, B and F for one token and portal user. */
export function requestsFor(token, portalUserId) {
  return {
    reqA: getPortalUserModern(token, portalUserId),
    reqB: legacyRequest(token, 1, 'tools/call', {
      name: 'get_portal_user',
      arguments: { id: portalUserId },
    }),
    reqF: modernRequest(token, 1, 'tools/list'),
  };
}

/** A 200 whose tool result is `expected` (the REST row). */
function answersRow(r, expected) {
  const o = toolOutcome(r.json);
  return r.status === 200 && o.kind === 'ok' && isDeepStrictEqual(o.value, expected);
}

/** Per scenario key, a check that it answers what it should (every one runs before measuring). */
function correctnessChecks(ctx) {
  const { client, floorClient, sdkClient, replicaClient, traced, reqs, main } = ctx;
  const { portalUserId, answerA, restRow } = ctx;
  const { reqA, reqB, reqF } = reqs;
  const expected = restRow.json;
  const auth = { headers: { authorization: `Bearer ${main.token}` } };
  /** Ours: the row both as structured content and as the text block. */
  const oursAnswersRow = (r) =>
    answersRow(r, expected) &&
    isDeepStrictEqual(JSON.parse(r.json.result.content[0].text), expected);
  return {
    A: async () => {
      const r = await client.request('POST', '/mcp', reqA);
      return oursAnswersRow(r) && r.json.result.resultType === 'complete';
    },
    B: async () => {
      const r = await client.request('POST', '/mcp', reqB);
      return oursAnswersRow(r) && r.json.result.resultType === undefined;
    },
    C: async () => restRow.status === 200 && expected?.id === portalUserId,
    D: async () => {
      const r = await floorClient.request('POST', '/mcp', reqA);
      return r.status === 200 && r.text.length === answerA.text.length;
    },
    E: async () => answersRow(await sdkClient.request('POST', '/mcp', reqA), expected),
    'E+rl': async () => answersRow(await sdkClient.request('POST', '/mcp-limited', reqA), expected),
    ...Object.fromEntries(
      Object.entries(traced).map(([key, t]) => [
        key,
        async () => answersRow(await t.client.request('POST', '/mcp', reqA), expected),
      ]),
    ),
    ...(replicaClient === undefined
      ? {}
      : {
          'A+redis': async () =>
            answersRow(await replicaClient.request('POST', '/mcp', reqA), expected),
          'C+redis': async () => {
            const r = await replicaClient.request('GET', `/v1/portal-users/${portalUserId}`, auth);
            return r.status === 200 && isDeepStrictEqual(r.json, expected);
          },
          'E+rl+redis': async () =>
            answersRow(await sdkClient.request('POST', '/mcp-limited-redis', reqA), expected),
        }),
    F: async () => {
      const r = await client.request('POST', '/mcp', reqF);
      return (
        r.status === 200 && Array.isArray(r.json?.result?.tools) && r.json.result.tools.length > 10
      );
    },
  };
}

/** Runs every check (throws on the first that fails) and logs the answer sizes. */
export async function checkScenarios(ctx) {
  for (const [key, check] of Object.entries(correctnessChecks(ctx))) {
    if (!(await check()))
      throw new Error(`scenario ${key} does not answer as expected; not measuring it`);
  }
  const { client, sdkClient, reqs, answerA, restRow, portalUserId } = ctx;
  const sdkAnswer = await sdkClient.request('POST', '/mcp', reqs.reqA);
  log(
    `checked: A/B/E return portal user ${portalUserId}; answer sizes A ${answerA.text.length} B ${(await client.request('POST', '/mcp', reqs.reqB)).text.length} C ${restRow.text.length} D ${answerA.text.length} E ${sdkAnswer.text.length} F ${(await client.request('POST', '/mcp', reqs.reqF)).text.length} bytes`,
  );
}

/** The scenarios `options.scenarios` asks for, in run order, with the baseline's sides. */
export function scenarioTable(ctx) {
  const { main, floor, sdk, traced, replica, base, reqs, portalUserId, options } = ctx;
  const { engine, baseUrl, token } = main;
  const { reqA, reqB, reqF } = reqs;
  const serverPids = [main.server.pid];
  const embedded = engine === 'embedded';
  const mcp = `${baseUrl}/mcp`;
  const scenarios = [
    {
      key: 'A',
      label: 'tools/call get_portal_user, 2026-07-28 (headers + _meta)',
      target: { url: mcp, method: 'POST', ...reqA },
      pids: serverPids,
      dbCpuIncluded: embedded,
    },
    {
      key: 'B',
      label: 'tools/call get_portal_user, 2025-11-25 (after initialize)',
      target: { url: mcp, method: 'POST', ...reqB },
      pids: serverPids,
      dbCpuIncluded: embedded,
    },
    {
      key: 'C',
      label: 'GET /v1/portal-users/{id} (what A dispatches to)',
      target: {
        url: `${baseUrl}/v1/portal-users/${portalUserId}`,
        headers: { authorization: `Bearer ${token}` },
      },
      pids: serverPids,
      dbCpuIncluded: embedded,
    },
    {
      key: 'D',
      label: 'floor: bare Fastify route, same-sized JSON (own process)',
      target: { url: `${floor.url}/mcp`, method: 'POST', ...reqA },
      pids: [floor.pid],
      dbCpuIncluded: false,
      noDb: true,
    },
    {
      key: 'E',
      label: 'SDK v2 createMcpHandler + low-level Server, pg (own process)',
      target: { url: `${sdk.url}/mcp`, method: 'POST', ...reqA },
      pids: [sdk.pid],
      dbCpuIncluded: false,
      embeddedDbPid: embedded ? main.server.pid : undefined,
    },
    {
      key: 'E+rl',
      label: 'E plus the same two Postgres rate limits as ours (own process)',
      target: { url: `${sdk.url}/mcp-limited`, method: 'POST', ...reqA },
      pids: [sdk.pid],
      dbCpuIncluded: false,
      embeddedDbPid: embedded ? main.server.pid : undefined,
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
            target: { url: `${sdk.url}/mcp-limited-redis`, method: 'POST', ...reqA },
            pids: [sdk.pid],
            dbCpuIncluded: false,
          },
        ]),
    {
      key: 'F',
      label: 'tools/list, 2026-07-28',
      target: { url: mcp, method: 'POST', ...reqF },
      pids: serverPids,
      dbCpuIncluded: embedded,
    },
    {
      key: 'G',
      label: 'confirmed delete_portal_user round trips (ask + accept)',
      custom: 'G',
      pids: serverPids,
      dbCpuIncluded: embedded,
    },
    {
      key: 'H',
      label: 'consuming distinct confirmations concurrently (accept calls)',
      custom: 'H',
      pids: serverPids,
      dbCpuIncluded: embedded,
    },
    {
      key: 'A1',
      label: 'A at 1 connection, alternating with C1 (unloaded latency)',
      serialPair: 'C1',
      pids: serverPids,
      dbCpuIncluded: embedded,
      serial: true,
    },
    {
      key: 'C1',
      label: 'C at 1 connection, alternating with A1 (unloaded latency)',
      serialPairOf: 'A1',
      pids: serverPids,
      dbCpuIncluded: embedded,
      serial: true,
    },
  ].filter((s) => options.scenarios.includes(s.key));
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
  return scenarios;
}
