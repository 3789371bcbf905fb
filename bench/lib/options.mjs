// The benchmark's knobs, from the environment (bench/run.mjs lists them with their defaults).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function intEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`${name} must be a positive number, got ${raw}`);
  return n;
}

export const DEFAULT_SCENARIOS =
  'A,B,C,D,E,E+rl,A+redis,C+redis,E+rl+redis,A+trace1,A+trace0.1,F,G,H,A1,C1';

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
    scenarios: (process.env.BENCH_SCENARIOS ?? DEFAULT_SCENARIOS).split(',').map((s) => s.trim()),
  };
}

/**
 * What bench/run.mjs and bench/profile.mjs hand runBench: the checkout to measure (BENCH_ROOT, else
 * this one), the knobs, the list of what was started, the deadline (BENCH_MAX_SECONDS from now)
 * and the baseline checkout (BENCH_BASELINE).
 */
export function runFromEnv() {
  const options = optionsFromEnv();
  return {
    root: resolve(process.env.BENCH_ROOT ?? fileURLToPath(new URL('../..', import.meta.url))),
    options,
    started: [],
    deadline: Date.now() + options.maxSeconds * 1000,
    baselineRoot: process.env.BENCH_BASELINE,
  };
}
