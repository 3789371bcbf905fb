// What a run concludes: the paired ratios against their targets, the notes under the table and
// the machine it ran on (report.mjs renders them). A new variant adds its ratios here.
import os from 'node:os';
import { median } from './load.mjs';
import { pairedDiff, pairedRatio } from './report.mjs';
import { packageVersion, startProdCommand } from './setup.mjs';

const x = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '–');
/** `(target ≥ 0.85×: met)`: `goal` a number, `unit` how it is written after it. */
const target = (v, op, goal, unit = '×') =>
  `(target ${op} ${goal}${unit}: ${(op === '≥' ? v >= goal : v <= goal) ? 'met' : 'NOT met'})`;

/** The ratios the results allow (a pair is listed when both sides ran). */
export function computeRatios(results, engine) {
  const ratios = [];
  const has = (k) => (results[k]?.length ?? 0) > 0;
  if (has('A') && has('C')) {
    const rps = pairedRatio(results, 'A', 'C');
    const p50 = pairedDiff(results, 'A', 'C', 'p50');
    const cpu = pairedDiff(results, 'A', 'C', 'servingCpuPerReqUs');
    ratios.push({
      label: 'A/C throughput (MCP vs the direct REST call)',
      text: `${x(rps)} ${target(rps, '≥', 0.85)}`,
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
      text: `${p50.toFixed(2)} ms ${target(p50, '≤', 0.3, ' ms')}`,
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
      text: `${x(rps)} ${target(rps, '≥', 1.2)}`,
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
      text: `${x(rps)} ${target(rps, '≥', 0.85)}`,
    });
  }
  if (has('A+redis') && has('E')) {
    const rps = pairedRatio(results, 'A+redis', 'E');
    ratios.push({
      label: 'A(Redis)/E throughput (ours with both budgets vs the SDK with none)',
      text: `${x(rps)} ${target(rps, '≥', 1.2)}`,
    });
  }
  if (has('A+redis') && has('E+rl+redis')) {
    const rps = pairedRatio(results, 'A+redis', 'E+rl+redis');
    ratios.push({
      label: 'A/(E+rl) throughput, both with the same Redis budgets',
      text: `${x(rps)} ${target(rps, '≥', 1.5)}`,
    });
  }
  for (const key of ['A+trace1', 'A+trace0.1']) {
    if (!has('A') || !has(key)) continue;
    const rps = pairedRatio(results, key, 'A');
    ratios.push({
      label: `${key}/A throughput (tracing on vs off)`,
      text: `${x(rps)}${key === 'A+trace1' ? ` ${target(rps, '≥', 0.85)}` : ''}`,
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
  return ratios;
}

/** The lines under the table: scenarios skipped, the replay checks, memory. */
export function runNotes({ skipped, replay, options, memory, sideMemory, engine }) {
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
  return notes;
}

/** The machine, software and commands behind the figures. */
export function machineDescription(root, engineVersion) {
  const pkg = (name) => packageVersion(root, name);
  return {
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
}
