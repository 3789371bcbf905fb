// One measured run: autocannon (or a custom driver) at a fixed concurrency, with exact latency
// percentiles (autocannon's own histogram keeps whole milliseconds, too coarse here) and the CPU
// the serving processes, the database and this load generator spent meanwhile.
import autocannon from 'autocannon';
import { cpuMicros, groupCpuMicros, groupDelta } from './processes.mjs';

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function median(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/**
 * Samples CPU around `body()`. `servingPids`: the processes whose work the scenario measures;
 * `dbPids()`: the database's processes (re-listed at the end: Postgres forks backends).
 */
async function withCpu({ servingPids, dbPids }, body) {
  const before = groupCpuMicros(servingPids);
  const dbBefore = groupCpuMicros(dbPids());
  const clientBefore = process.cpuUsage();
  const out = await body();
  const client = process.cpuUsage(clientBefore);
  const after = groupCpuMicros(servingPids);
  const dbAfter = groupCpuMicros(dbPids());
  return {
    ...out,
    servingCpuUs: groupDelta(before, after),
    dbCpuUs: groupDelta(dbBefore, dbAfter),
    clientCpuUs: client.user + client.system,
  };
}

function summarise(latencies, count, durationS, cpu, extra = {}) {
  const sorted = Float64Array.from(latencies).sort();
  return {
    count,
    durationS,
    rps: count / durationS,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length),
    servingCpuPerReqUs: cpu.servingCpuUs / Math.max(1, count),
    dbCpuPerReqUs: cpu.dbCpuUs / Math.max(1, count),
    clientCpuPerReqUs: cpu.clientCpuUs / Math.max(1, count),
    ...extra,
  };
}

/** autocannon against one fixed request for `seconds`; non-2xx answers and socket errors fail it. */
export async function runAutocannon(target, { connections, seconds, servingPids, dbPids }) {
  const latencies = [];
  let ok = 0;
  let bad = 0;
  const started = process.hrtime.bigint();
  const measured = await withCpu({ servingPids, dbPids }, async () => {
    const instance = autocannon({
      url: target.url,
      method: target.method ?? 'GET',
      headers: target.headers,
      body: target.body,
      connections,
      duration: seconds,
      timeout: 10,
      renderProgressBar: false,
      renderResultsTable: false,
    });
    instance.on('response', (_client, status, _bytes, responseTime) => {
      if (status >= 200 && status < 300) {
        ok += 1;
        latencies.push(responseTime);
      } else bad += 1;
    });
    const result = await instance;
    return { result };
  });
  const durationS = Number(process.hrtime.bigint() - started) / 1e9;
  const errors = measured.result.errors + measured.result.timeouts;
  if (bad > 0 || errors > 0) {
    throw new Error(`${target.key}: ${bad} non-2xx answers and ${errors} errors/timeouts`);
  }
  return summarise(latencies, ok, durationS, measured);
}

/**
 * A custom driver (G, H): `drive()` resolves `{ latencies, count, ... }` where `count` is the unit
 * the scenario reports (e.g. confirmed round trips) and `latencies` are per unit.
 */
export async function runCustom(drive, { servingPids, dbPids }) {
  const started = process.hrtime.bigint();
  const measured = await withCpu({ servingPids, dbPids }, drive);
  const durationS = Number(process.hrtime.bigint() - started) / 1e9;
  const { latencies, count, ...extra } = measured;
  delete extra.servingCpuUs;
  delete extra.dbCpuUs;
  delete extra.clientCpuUs;
  return summarise(latencies, count, durationS, measured, extra);
}

export { cpuMicros };
