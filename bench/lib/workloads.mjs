// The workloads autocannon cannot drive: G (a confirmed delete, two chained calls), H (the
// confirmation ledger under contention, with its replay check) and A1/C1 (one connection,
// alternating). Each resolves the same result shape as runAutocannon (load.mjs).
import { pool } from './http.mjs';
import { median, percentile, runCustom } from './load.mjs';
import { deleteAccept, deleteAsk, toolOutcome } from './mcp.mjs';
import { log } from './processes.mjs';

/**
 * G and H over `client` (H's replay burst over `burst`), deleting the portal users in `created`.
 * `replay` collects every round's replay check for the notes.
 */
export function confirmationWorkloads({ client, burst, token, options, created }) {
  let rpcId = 10;
  const take = (n) => created.splice(0, n);
  const post = (c, body) => c.request('POST', '/mcp', body);
  const replay = [];

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

  /** G for `seconds`: confirmed deletes of this round's portal users, `connections` at a time. */
  function runG(seconds, sampling) {
    const ids = take(options.gPerRound);
    const until = Date.now() + seconds * 1000;
    return runCustom(async () => {
      const latencies = await pool(ids, options.connections, confirmedDelete, until);
      return { latencies, count: latencies.length };
    }, sampling);
  }

  /** H: the replay check, then ask for N confirmations (untimed) and consume them all (timed). */
  async function runH(sampling, { warm }) {
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

  return { runG, runH, replay };
}

/**
 * A1/C1: one keep-alive connection (`serialClient`) sending A and C alternately (A C C A A C …),
 * one at a time, so both see the same moment of a noisy machine. Resolves both results and the
 * median of the per-pair latency differences (A − C), the MCP layer's own cost in time without
 * queueing.
 */
export function serialPairWorkload({ serialClient, reqA, token, portalUserId }) {
  return async function serialPair(seconds) {
    const a = [];
    const c = [];
    const diffs = [];
    const until = Date.now() + seconds * 1000;
    const started = process.hrtime.bigint();
    const callA = async () => {
      const r = await serialClient.request('POST', '/mcp', reqA);
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
  };
}
