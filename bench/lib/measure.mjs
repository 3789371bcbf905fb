// Measurement: one warm-up run per scenario, then interleaved rounds (odd rounds in order, even
// rounds in reverse), a baseline side at the same time as its scenario, A1/C1 as one serial pair.
// Each run samples the CPU of the processes serving it and of the database (load.mjs).
import { runAutocannon } from './load.mjs';
import { pidsNamed, log } from './processes.mjs';

/**
 * Resolves `{ results, windows }`: per scenario key the list of per-round results, and when each
 * measured run happened on the monotonic clock V8's CPU profiles use (µs).
 * `workloads`: `{ runG, runH, serialPair }` (workloads.mjs); `timeLeft()`: ms left in the budget.
 */
export async function measureRounds({ scenarios, options, engine, workloads, timeLeft }) {
  const dbPids = engine === 'postgres' ? () => pidsNamed('postgres') : () => [];
  const { runG, runH, serialPair } = workloads;

  /** One run of `s` for `seconds` (`split`: how many sides share the connections). */
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
    if (s.custom === 'G') return runG(seconds, sampling);
    return runH(sampling, { warm });
  }

  const results = Object.fromEntries(scenarios.map((s) => [s.key, []]));
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
  return { results, windows };
}
