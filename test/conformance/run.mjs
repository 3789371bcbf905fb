#!/usr/bin/env node
// `npm run test:conformance`: the official MCP conformance suite against the BUILT server.
//
// 1. Starts `node dist/apps/server/src/main.js` on a free loopback port with a temporary DATA_DIR:
//    on the embedded Postgres by default, or — when DATABASE_URL is set — in a fresh database on
//    that server (migrated with dist/…/migrate.js, demo data seeded with SEED_DEMO=true, dropped
//    at the end).
// 2. Reads the demo owner token from DATA_DIR/demo-tokens.json and puts a loopback proxy in front
//    that adds `Authorization: Bearer <token>` (the suite cannot) and keeps Host/Origin intact.
// 3. Runs `conformance server --requirements 2025-11-25` and `--requirements 2026-07-28`, each with
//    its expected-failures baseline (only scenarios that need the suite's fixture tools, prompts
//    and resources, which a domain server does not have).
// 4. Fails on any unexpected failure or stale baseline entry (the suite's own exit code), and on
//    any failure in MUST_PASS — which also covers scenarios the requirement files run unscored
//    (http-header-validation), where a baseline has no say.
// 5. Prints `conformance: N passed, N failed`, stops everything it started, exits non-zero on failure.
//
// The suite crashes on Node 20 (it imports fs.globSync); ./register.mjs fixes that for its process.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { startAuthProxy } from './auth-proxy.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const require = createRequire(import.meta.url);

const MAIN = join(root, 'dist/apps/server/src/main.js');
const MIGRATE = join(root, 'dist/apps/server/src/migrate.js');
const CONFORMANCE_CLI = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
const REGISTER = join(here, 'register.mjs');
const REVISIONS = ['2025-11-25', '2026-07-28'];

/** Scenarios that must pass outright (never baselined), by the revision whose requirements run them. */
const MUST_PASS_IN = {
  '2025-11-25': new Set([
    'server-initialize',
    'ping',
    'tools-list',
    'dns-rebinding-protection',
    // Unscored in the requirements (added after release / pending), passing with the fixtures.
    'server-session-lifecycle',
    'json-schema-2020-12',
  ]),
  '2026-07-28': new Set([
    'server-stateless',
    'tools-list',
    'dns-rebinding-protection',
    'http-header-validation',
    'caching',
    'sep-2164-resource-not-found',
    'input-required-result-unsupported-methods',
    // Unscored (pending in the suite), passing with the fixtures: a regression must fail the run.
    'json-schema-2020-12',
    'http-custom-header-server-validation',
  ]),
};
const MUST_PASS = new Set(Object.values(MUST_PASS_IN).flatMap((set) => [...set]));

const STARTUP_TIMEOUT_MS = 120_000;
const started = [];
let failed = false;

function log(line) {
  process.stdout.write(`[conformance] ${line}\n`);
}

async function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

/** Spawns a child whose output goes to ours with a prefix; returns a handle that can stop it. */
function launch(label, command, args, env, { quiet = false } = {}) {
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = (chunk) =>
    chunk
      .toString()
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => `[${label}] ${l}\n`)
      .join('');
  let tail = '';
  const keep = (chunk) => {
    tail = (tail + chunk.toString()).slice(-8000);
  };
  child.stdout.on('data', (c) => (quiet ? keep(c) : process.stdout.write(prefix(c))));
  child.stderr.on('data', (c) => (quiet ? keep(c) : process.stderr.write(prefix(c))));
  const exited = new Promise((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit({ code, signal })),
  );
  const handle = {
    label,
    child,
    exited,
    tail: () => tail,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
  return handle;
}

async function run(label, command, args, env) {
  const handle = launch(label, command, args, env);
  const { code, signal } = await handle.exited;
  return code ?? (signal ? 1 : 0);
}

async function waitForServer(server, baseUrl, tokensFile) {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null)
      throw new Error(
        `the server exited (${server.child.exitCode}) during startup:\n${server.tail()}`,
      );
    try {
      const res = await fetch(`${baseUrl}/health/ready`);
      if (res.ok && existsSync(tokensFile)) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `the server was not ready within ${STARTUP_TIMEOUT_MS / 1000} s:\n${server.tail()}`,
  );
}

/** A fresh database on the Postgres named by DATABASE_URL; dropped by the returned function. */
async function freshDatabase(adminUrl) {
  const { default: pg } = await import('pg');
  const name = `conformance_${Date.now().toString(36)}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Every scenario's checks from an output directory (`<scenario>-<timestamp>/checks.json`). */
async function readResults(dir) {
  const results = new Map();
  if (!existsSync(dir)) return results;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const file = join(dir, entry.name, 'checks.json');
    if (!existsSync(file)) continue;
    const scenario = entry.name.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
    results.set(scenario, JSON.parse(await readFile(file, 'utf8')));
  }
  return results;
}

function isFailure(check) {
  return check.status === 'FAILURE' || check.status === 'WARNING';
}

async function main() {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  const work = await mkdtemp(join(tmpdir(), 'platform-conformance-'));
  const workDir = { label: 'temp dir', stop: () => rm(work, { recursive: true, force: true }) };
  started.push(workDir);

  const port = await freePort();
  const env = {
    ...process.env,
    // The suite's fixtures (test_* tools, prompts, test:// resources) are registered through our
    // own registries; the configuration refuses them with NODE_ENV=production, so this run is "test".
    NODE_ENV: 'test',
    MCP_CONFORMANCE_FIXTURES: 'true',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: join(work, 'data'),
    LOG_LEVEL: process.env.CONFORMANCE_LOG_LEVEL ?? 'warn',
    // The suite sends a few hundred requests from one address within a minute.
    RATE_LIMIT_PER_IP_PER_MINUTE: '100000',
    RATE_LIMIT_PER_TOKEN_PER_MINUTE: '100000',
  };
  delete env.NODE_OPTIONS;
  delete env.PUBLIC_BASE_URL;
  // The suite reaches the server through the auth proxy and, in the DNS-rebinding scenario,
  // sends the proxy's own origin as the legitimate one. An empty allowlist allows no browser
  // origin at all, so the run allows exactly that one (as a deployment lists its own UI's origin).
  const proxyPort = await freePort();
  env.MCP_ALLOWED_ORIGINS = `http://127.0.0.1:${proxyPort}`;

  if (process.env.DATABASE_URL) {
    const db = await freshDatabase(process.env.DATABASE_URL);
    started.push({ label: 'database', stop: db.drop });
    env.DATABASE_URL = db.url;
    env.SEED_DEMO = 'true';
    env.SERVER_SECRET_KEYS ??= `conformance-${'k'.repeat(40)}`;
    log(`database: a fresh one on ${new URL(process.env.DATABASE_URL).host}`);
    const migrated = await run('migrate', process.execPath, [MIGRATE, 'up'], env);
    if (migrated !== 0) throw new Error('migrations failed');
  } else {
    delete env.DATABASE_URL;
    log('database: embedded Postgres under a temporary DATA_DIR');
  }

  const baseUrl = `http://127.0.0.1:${port}`;
  const server = launch('server', process.execPath, [MAIN], env, { quiet: true });
  started.push(server);
  await waitForServer(server, baseUrl, join(env.DATA_DIR, 'demo-tokens.json'));
  const { tokens } = JSON.parse(await readFile(join(env.DATA_DIR, 'demo-tokens.json'), 'utf8'));
  log(`server: ${baseUrl} (pid ${server.child.pid})`);

  const proxy = await startAuthProxy({ target: baseUrl, token: tokens.owner, port: proxyPort });
  started.push({ label: 'proxy', stop: () => proxy.close() });
  log(`proxy:  ${proxy.url} → ${baseUrl}, adding the demo owner token`);

  const cliEnv = { ...process.env, NODE_OPTIONS: `--import=${REGISTER}` };
  const totals = { passed: 0, failed: 0, baselined: 0, unscored: 0 };
  const problems = [];
  for (const revision of REVISIONS) {
    const out = join(work, `results-${revision}`);
    const baselineFile = join(here, `expected-failures.${revision}.yml`);
    log(`--- requirements ${revision} (baseline ${baselineFile.slice(root.length + 1)})`);
    const code = await run(
      `suite ${revision}`,
      process.execPath,
      [
        CONFORMANCE_CLI,
        'server',
        '--url',
        `${proxy.url}/mcp`,
        '--requirements',
        revision,
        '--expected-failures',
        baselineFile,
        '-o',
        out,
      ],
      cliEnv,
    );
    if (code !== 0)
      problems.push(
        `${revision}: the suite reports unexpected failures or stale baseline entries (exit ${code})`,
      );

    const requirements = parseYaml(
      await readFile(
        join(dirname(CONFORMANCE_CLI), '..', 'requirements', `${revision}.yaml`),
        'utf8',
      ),
    );
    const unscored = new Set(
      (requirements.not_scored ?? []).filter((e) => e.leg === 'server').map((e) => e.scenario),
    );
    const baseline = parseYaml(await readFile(baselineFile, 'utf8'))?.server ?? [];
    const results = await readResults(out);
    if (results.size === 0) problems.push(`${revision}: no results were written`);
    for (const [scenario, checks] of results) {
      const failing = [...new Set(checks.filter(isFailure).map((c) => c.id))];
      const mustPass = MUST_PASS.has(scenario);
      // A must-pass scenario may only have single fixture checks baselined, never the whole of it.
      const baselined = (id) =>
        baseline.includes(`${scenario}:${id}`) || (!mustPass && baseline.includes(scenario));
      if (failing.length === 0) totals.passed += 1;
      else if (failing.every(baselined)) totals.baselined += 1;
      else if (unscored.has(scenario) && !mustPass) totals.unscored += 1;
      else {
        totals.failed += 1;
        const what = mustPass ? 'must pass' : 'failed unexpectedly';
        problems.push(
          `${revision} ${scenario} ${what}; failing: ${failing.filter((id) => !baselined(id)).join(', ')}`,
        );
      }
    }
    for (const scenario of MUST_PASS_IN[revision]) {
      if (!results.has(scenario)) problems.push(`${revision} ${scenario} did not run`);
    }
  }
  for (const p of problems) log(`FAIL ${p}`);
  failed = problems.length > 0;
  process.stdout.write(
    `conformance: ${totals.passed} passed, ${totals.failed} failed ` +
      `(${totals.baselined} expected failures baselined, ${totals.unscored} unscored scenarios failing)\n`,
  );
  if (failed) {
    started.splice(started.indexOf(workDir), 1);
    log(`results kept in ${work}`);
  }
}

async function stopAll() {
  for (const item of started.toReversed()) {
    try {
      await item.stop();
    } catch (err) {
      log(`could not stop ${item.label}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    void stopAll().then(() => process.exit(130));
  });
}

try {
  await main();
} catch (err) {
  failed = true;
  log(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.stdout.write('conformance: 0 passed, 1 failed (the run did not complete)\n');
} finally {
  if (!stopping) await stopAll();
}
process.exit(failed ? 1 : 0);
