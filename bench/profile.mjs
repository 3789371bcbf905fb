#!/usr/bin/env node
// `node bench/profile.mjs` (after `npm run build`): the server under load A and C (or
// BENCH_SCENARIOS) with `node --cpu-prof`, then the self time of the samples taken while each load
// ran (the profile and this process share the monotonic clock), per request, by bucket, category
// and function, with the A − C difference (what the MCP layer adds to the REST call it makes).
// Same environment knobs as bench/run.mjs (DATABASE_URL for real Postgres); defaults to A and C,
// 2 rounds of 5 s. Writes nothing into the repository; the profile stays in BENCH_PROFILE_DIR
// (default: a temp dir, printed) for a closer look in Chrome DevTools.
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { runBench } from './lib/bench.mjs';
import { runFromEnv } from './lib/options.mjs';
import { log } from './lib/processes.mjs';
import { stopAll } from '../test/support/server-process.mjs';
import { consoleTable } from './lib/report.mjs';

process.env.BENCH_SCENARIOS ??= 'A,C';
process.env.BENCH_ROUNDS ??= '2';
// BENCH_ROOT: measure another checkout's build (its dist/) with this benchmark.
const bench = runFromEnv();
const { options, started } = bench;
const top = Number(process.env.BENCH_PROFILE_TOP ?? 30);

/** Where a frame's code lives: a package, one of our libs, Node itself, V8 builtins, GC. */
export function categoryOf(frame) {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return 'V8/native (program)';
  if (functionName === '(idle)') return 'idle';
  if (url.startsWith('wasm://')) return 'PGlite (wasm)';
  if (url === '') {
    if (
      /^(writev|writeBuffer|writeUtf8String|writeLatin1String|readv|fstat|close|open|read|write)$/.test(
        functionName,
      )
    )
      return 'native I/O bindings';
    if (functionName === 'runMicrotasks') return 'promise microtasks';
    if (functionName === 'stringify' || functionName === 'parse') return 'JSON';
    return 'V8 builtins';
  }
  const nm = url.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return `pkg ${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const lib = /\/dist\/libs\/([^/]+)\//.exec(url);
  if (lib) return `ours @app/${lib[1]}`;
  if (url.includes('/dist/apps/')) return 'ours apps/server';
  if (url.startsWith('node:'))
    return `node ${url.replace(/^node:(internal\/)?/, '').split('/')[0]}`;
  return url;
}

/** Coarser groups of categories, for the summary in docs/benchmarks.md. */
export function bucketOf(category) {
  if (category === 'idle') return 'idle (waiting: database, network, load generator)';
  if (category === 'GC') return 'garbage collection';
  if (category.startsWith('ours ')) return 'our code (libs/*, apps/server)';
  if (/^(PGlite|pkg @electric-sql)/.test(category)) return 'embedded Postgres (PGlite, in process)';
  if (
    /^pkg (pg|pg-protocol|pg-pool|pg-types|postgres-|typeorm|rate-limiter-flexible)/.test(category)
  )
    return 'database client (pg, TypeORM, rate-limiter store)';
  if (
    /^(native I\/O bindings|node (net|streams|stream_base_commons|_http_|buffer|dns))/.test(
      category,
    )
  )
    return 'socket I/O (syscalls: the kernel side of loopback TCP, counted while it runs or waits)';
  if (/^pkg (light-my-request)/.test(category))
    return 'in-process dispatch (light-my-request inject)';
  if (
    /^pkg (@nestjs|fastify|find-my-way|@fastify|rxjs|reflect-metadata|class-validator|class-transformer|passport|nestjs-cls|nestjs-pino|pino|avvio|toad-cache|validator|prom-client|reusify|fast-)/.test(
      category,
    )
  )
    return 'framework (Nest, Fastify, rxjs, validation, passport, cls, pino, prom-client)';
  if (/^(node async_hooks|promise microtasks|node timers|node process|node events)/.test(category))
    return 'async machinery (promises, AsyncLocalStorage hooks, events, timers)';
  if (/^(JSON|V8 builtins|node crypto)/.test(category)) return 'JSON, crypto and other V8 builtins';
  return 'other Node/V8 internals';
}

/** Self time (µs) per category, per bucket and per function, over the samples inside `windows`. */
function summarise(profile, windows) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const inWindow = (t) => windows.some((w) => t >= w.fromUs && t <= w.toUs);
  const selfUs = new Map();
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    t += profile.timeDeltas[i];
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (!inWindow(t)) continue;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + dt);
    total += dt;
  }
  const categories = new Map();
  const buckets = new Map();
  const functions = new Map();
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id);
    const cat = categoryOf(callFrame);
    categories.set(cat, (categories.get(cat) ?? 0) + us);
    const bucket = bucketOf(cat);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + us);
    const file = callFrame.url.replace(/^.*\/(node_modules|dist)\//, '');
    const key = `${callFrame.functionName || '(anonymous)'} ${file}:${callFrame.lineNumber + 1}`;
    const f = functions.get(key) ?? { us: 0, cat };
    f.us += us;
    functions.set(key, f);
  }
  return { total, categories, buckets, functions };
}

let failed = false;
const watchdog = setTimeout(
  () => void stopAll(started, log).then(() => process.exit(124)),
  (options.maxSeconds + 30) * 1000,
);
try {
  const dir =
    process.env.BENCH_PROFILE_DIR ?? (await mkdtemp(join(os.tmpdir(), 'platform-profile-')));
  const run = await runBench({
    ...bench,
    serverNodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  });
  await stopAll(started, log); // SIGTERM → graceful exit → the profile is written
  process.stdout.write(`\n${consoleTable(run)}\n\n`);
  // One profile per server thread (`CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`): the main
  // server and, for A+redis, C+redis and A+trace*, the replica that serves them.
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  // The main thread's (thread id 0): a traced server also runs its module hooks on a thread.
  const fileOfPid = new Map(
    files.filter((f) => f.split('.')[4] === '0').map((f) => [Number(f.split('.')[3]), f]),
  );
  const counts = Object.fromEntries(
    Object.entries(run.results).map(([k, runs]) => [k, runs.reduce((a, r) => a + r.count, 0)]),
  );
  await writeFile(join(dir, 'windows.json'), JSON.stringify({ windows: run.windows, counts }));
  // Only scenarios served by one profiled server process (not D, E or a baseline build).
  const served = run.scenarios.filter((s) => s.pids.length === 1 && fileOfPid.has(s.pids[0]));
  const keys = served.map((s) => s.key);
  const profiles = new Map();
  const per = {};
  for (const s of served) {
    const file = fileOfPid.get(s.pids[0]);
    if (!profiles.has(file))
      profiles.set(file, JSON.parse(await readFile(join(dir, file), 'utf8')));
    per[s.key] = summarise(
      profiles.get(file),
      run.windows.filter((w) => w.key === s.key),
    );
  }
  const cpu = Object.fromEntries(keys.map((k) => [k, run.summary[k].servingCpu]));
  process.stdout.write(`profiles: ${[...profiles.keys()].map((f) => join(dir, f)).join(', ')}\n`);
  process.stdout.write(
    `Sampled server time per request (wall clock while the load ran; /proc CPU per request for comparison: ${keys.map((k) => `${k} ${cpu[k].toFixed(0)} µs`).join(', ')})\n\n`,
  );
  const table = (title, pick) => {
    const names = new Set(keys.flatMap((k) => [...pick(per[k]).keys()]));
    const rows = [...names].map((n) => [
      n,
      ...keys.map((k) => (pick(per[k]).get(n) ?? 0) / counts[k]),
    ]);
    rows.sort((a, b) => b[1] - a[1]);
    const diff = keys.length === 2;
    process.stdout.write(
      `${title}\n| ${keys.map((k) => `${k} µs/req`).join(' | ')}${diff ? ` | ${keys[0]} − ${keys[1]}` : ''} | |\n`,
    );
    process.stdout.write(`|${keys.map(() => '---:').join('|')}${diff ? '|---:' : ''}|---|\n`);
    for (const [n, ...v] of rows) {
      if (Math.max(...v.map(Math.abs)) < 3) continue;
      process.stdout.write(
        `| ${v.map((x) => x.toFixed(0)).join(' | ')}${diff ? ` | ${(v[0] - v[1]).toFixed(0)}` : ''} | ${n} |\n`,
      );
    }
    process.stdout.write('\n');
  };
  table('By bucket:', (x) => x.buckets);
  table('By category (package, our lib, Node module):', (x) => x.categories);
  for (const k of keys.slice(0, 1)) {
    const { functions } = per[k];
    process.stdout.write(`Top ${top} functions by self time, ${k}:\n`);
    for (const [name, f] of [...functions].sort((a, b) => b[1].us - a[1].us).slice(0, top)) {
      process.stdout.write(
        `  ${(f.us / counts[k]).toFixed(1).padStart(7)} µs/req  ${name}  [${f.cat}]\n`,
      );
    }
  }
  if (keys.length === 2) {
    const [a, b] = keys;
    const names = new Set([...per[a].functions.keys(), ...per[b].functions.keys()]);
    const diffs = [...names].map((n) => {
      const fa = per[a].functions.get(n);
      const fb = per[b].functions.get(n);
      return [n, (fa?.us ?? 0) / counts[a] - (fb?.us ?? 0) / counts[b], (fa ?? fb).cat];
    });
    diffs.sort((x, y) => y[1] - x[1]);
    process.stdout.write(`\nTop ${top} functions by ${a} − ${b} self time per request:\n`);
    for (const [name, d, cat] of diffs.slice(0, top))
      process.stdout.write(`  ${d.toFixed(1).padStart(7)} µs/req  ${name}  [${cat}]\n`);
  }
} catch (err) {
  failed = true;
  log(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
} finally {
  await stopAll(started, log);
  clearTimeout(watchdog);
}
process.exit(failed ? 1 : 0);
