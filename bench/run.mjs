#!/usr/bin/env node
// `npm run bench` ("npm run build && node bench/run.mjs"): the MCP server's throughput, latency
// and CPU per request against the direct REST call, a bare Fastify floor and the official SDK v2,
// measured side by side in interleaved rounds on loopback. Bounded: every load run has a fixed
// duration or count, and the whole run stops by itself after BENCH_MAX_SECONDS (default 420).
//
// Database: a fresh database on DATABASE_URL's Postgres (dropped afterwards) when it is set,
// else the embedded Postgres under a temporary DATA_DIR. Prints the table; rewrites this engine's
// section of docs/benchmarks.md only when asked (`npm run bench -- --write-doc`, or BENCH_DOC=1),
// so a casual run leaves the work tree clean; raw figures go to BENCH_JSON
// (default: a file in the OS temp dir).
//
// Knobs (env): BENCH_ROUNDS (3), BENCH_SECONDS (5), BENCH_WARMUP_SECONDS (2),
// BENCH_SERIAL_SECONDS (4, the 1-connection runs), BENCH_CONNECTIONS (16), BENCH_G_PER_ROUND (150),
// BENCH_H_PER_ROUND (100), BENCH_H_REPLAYS (50), BENCH_MAX_SECONDS (420),
// BENCH_SCENARIOS (A,B,C,D,E,E+rl,A+redis,C+redis,E+rl+redis,A+trace1,A+trace0.1,F,G,H,A1,C1; the
// +redis ones need DATABASE_URL and redis-server, which the bench starts on a free port of its own;
// the +trace ones, tracing on at sampling 1.0 and 0.1 exporting to a sink process, DATABASE_URL).
// Before/after: BENCH_BASELINE=<another checkout with a built dist/> adds A@base and C@base, each
// run at the same time as A and C (half the connections each, sides alternated per round), and
// writes the `<engine>-vs-baseline` section instead. BENCH_ROOT=<checkout> measures another build.
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { runBench } from './lib/bench.mjs';
import { runFromEnv } from './lib/options.mjs';
import { log } from './lib/processes.mjs';
import { stopAll, stopOnSignals } from '../test/support/server-process.mjs';
import { consoleTable, markdown, writeDocSection } from './lib/report.mjs';

// BENCH_ROOT: measure another checkout's build (its dist/) with this benchmark.
const bench = runFromEnv();
const { root, options, started } = bench;

const stops = stopOnSignals(started, log);
// The hard stop: whatever happens, nothing outlives the budget (+ 30 s to shut down).
const watchdog = setTimeout(
  () => stops.abort(124, `time budget of ${options.maxSeconds} s exceeded: stopping`),
  (options.maxSeconds + 30) * 1000,
);

let failed = false;
try {
  const t0 = Date.now();
  const run = await runBench(bench);
  await stopAll(started, log);
  const text = markdown(run);
  process.stdout.write(`\n${consoleTable(run)}\n\n`);
  for (const n of run.notes) process.stdout.write(`${n}\n`);
  const jsonFile =
    process.env.BENCH_JSON ??
    join(os.tmpdir(), `platform-bench-${run.env.engine}-${Date.now()}.json`);
  await writeFile(
    jsonFile,
    JSON.stringify(
      {
        env: run.env,
        summary: run.summary,
        results: run.results,
        ratios: run.ratios,
        notes: run.notes,
      },
      null,
      2,
    ),
  );
  log(`raw figures: ${jsonFile}`);
  if (process.argv.includes('--write-doc') || process.env.BENCH_DOC === '1') {
    const doc = join(root, 'docs/benchmarks.md');
    const section = process.env.BENCH_BASELINE ? `${run.env.engine}-vs-baseline` : run.env.engine;
    await writeDocSection(doc, section, text);
    log(`wrote the ${section} section of docs/benchmarks.md`);
  }
  log(`done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
} catch (err) {
  failed = true;
  log(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
} finally {
  if (!stops.stopping()) await stopAll(started, log);
  clearTimeout(watchdog);
}
process.exit(failed ? 1 : 0);
