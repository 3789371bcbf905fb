import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, requireBuild, seedEmbeddedDataDir } from '../support/built-server.js';
import { skipWhen } from '../support/skip.js';

/**
 * What a person or a log shipper sees when the BUILT server starts (requires `npm run build`), on the
 * embedded default (the first run of a newcomer; DATABASE_URL of the test run is not passed on):
 * - the port already taken: one clear line on stderr, exit code 1, no stack anywhere, no tokens file;
 * - stdout a terminal: a short human banner on stderr with the URLs and the tokens file, even with
 *   LOG_LEVEL=warn, while stdout carries JSON only;
 * - stdout a pipe (a log shipper): JSON on stdout, no banner.
 *
 * A terminal comes from util-linux `script` (a pseudo-terminal for stdout, stderr redirected to a
 * file); without it the terminal case is skipped with a message.
 */

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const MAIN = join(ROOT, 'dist/apps/server/src/main.js');
const SCRIPT = '/usr/bin/script';
const STARTUP_TIMEOUT_MS = 120_000;
/** oidc-provider's own notice on Node 20 (see README, "Node version"); not ours to judge here. */
const RUNTIME_NOTICE = /^oidc-provider WARNING: Unsupported runtime/;

let work: string | undefined;
beforeAll(async () => {
  requireBuild();
  work = await mkdtemp(join(tmpdir(), 'platform-startup-'));
});
afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/** A path in this file's temporary directory. */
function inWork(name: string): string {
  if (work === undefined) throw new Error('beforeAll did not run');
  return join(work, name);
}

function serverEnv(dataDir: string, port: number, extra: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...extra,
  };
  return env;
}

function linesOf(text: string): string[] {
  return text
    .replace(/\r/g, '')
    .split('\n')
    .filter((l) => l.trim() !== '');
}

function ourLines(stderr: string): string[] {
  return linesOf(stderr)
    .map((l) => l.trim())
    .filter((l) => !RUNTIME_NOTICE.test(l));
}

function expectJsonOnly(stdout: string): Array<Record<string, unknown>> {
  return linesOf(stdout).map((line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new Error(`stdout line is not JSON: ${line}`);
    }
    expect(parsed).toBeTypeOf('object');
    // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- checked to be an object above
    return parsed as Record<string, unknown>;
  });
}

/** A test that gives the server a terminal: it needs util-linux's `script`, and time. */
const ON_A_TERMINAL = {
  timeout: 180_000,
  ...skipWhen(
    !existsSync(SCRIPT) && `${SCRIPT} (util-linux) is missing: it gives the server a terminal`,
  ),
};

/** Runs the shell `command` in the repository on a terminal of its own (`script`), with `env`. */
function onTerminal(command: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(SCRIPT, ['-qefc', command, '/dev/null'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function collect(child: ChildProcess): { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  return { out: () => out, err: () => err };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done(child.exitCode);
    else child.once('exit', (code) => done(code));
  });
}

/**
 * SIGTERM to the server (by the pid its shell wrote, else the child); one that already exited on its
 * own is left alone, so whatever made it exit is what the test reports.
 */
function stop(pid: number, child: ChildProcess): void {
  if (!Number.isInteger(pid) || pid <= 0) {
    child.kill('SIGTERM');
    return;
  }
  try {
    process.kill(pid, 'SIGTERM');
  } catch (err) {
    if (!(err instanceof Error && 'code' in err && err.code === 'ESRCH')) throw err;
  }
}

async function waitReady(url: string, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error('the server exited during startup');
    const ready = await fetch(`${url}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await delay(200);
  }
  throw new Error('the server was not ready in time');
}

/** The banner's lines (trimmed), as the README shows them. */
function bannerOf(base: string, dataDir: string): string[] {
  return [
    `MCP endpoint  ${base}/mcp`,
    `REST API      ${base}/v1   (OpenAPI: ${base}/v1/openapi.json)`,
    `Admin console ${base}/admin/`,
    `Demo tokens   ${join(dataDir, 'demo-tokens.json')}`,
  ];
}

describe('start-up output of the built server', () => {
  it('port in use: one clear line on stderr, exit code 1, no stack, no tokens file', async () => {
    const holder = net.createServer();
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
    const address = holder.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const dataDir = inWork('port-in-use');
    try {
      const child = spawn(process.execPath, [MAIN], {
        cwd: ROOT,
        env: serverEnv(dataDir, port),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const output = collect(child);
      const killer = setTimeout(() => child.kill('SIGKILL'), STARTUP_TIMEOUT_MS);
      const code = await exitOf(child);
      clearTimeout(killer);

      expect(code).toBe(1);
      expect(ourLines(output.err())).toEqual([
        `Cannot listen on 127.0.0.1:${port}: the port is already in use (set PORT to another port, or stop the other process)`,
      ]);
      for (const stream of [output.out(), output.err()]) expect(stream).not.toMatch(/^\s+at /m);
      // Refused before anything starts: no "successfully started", no engine start-up lines.
      const logs = expectJsonOnly(output.out());
      expect(logs.filter((l) => /started|listening|migrat/i.test(String(l.msg)))).toEqual([]);
      expect(existsSync(join(dataDir, 'demo-tokens.json'))).toBe(false);
    } finally {
      await new Promise((done) => holder.close(done));
    }
  }, 180_000);

  it('stdout a pipe: JSON only on stdout (the URLs among it), no banner on stderr', async () => {
    const port = await freePort();
    const dataDir = inWork('pipe');
    // What goes to which stream does not depend on a first start: the run's migrated template
    // spares this start initdb and the migrations. The first terminal case below starts from
    // nothing, as a newcomer's first `npm start` does.
    await seedEmbeddedDataDir(dataDir);
    const child = spawn(process.execPath, [MAIN], {
      cwd: ROOT,
      env: serverEnv(dataDir, port),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = collect(child);
    const exited = exitOf(child);
    try {
      await waitReady(`http://127.0.0.1:${port}`, () => child.exitCode === null);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    expect(ourLines(output.err())).toEqual([]);
    const messages = expectJsonOnly(output.out()).map((l) => String(l.msg));
    expect(messages).toContain(`MCP endpoint: http://127.0.0.1:${port}/mcp`);
    expect(messages).toContain(`Admin console: http://127.0.0.1:${port}/admin/`);
  }, 180_000);

  it(
    'a terminal, LOG_LEVEL=info (what `npm start` shows): the banner, with the console URL, is the last thing on screen',
    ON_A_TERMINAL,
    async () => {
      const port = await freePort();
      const dataDir = inWork('tty-info');
      const pidFile = inWork('tty-info-pid.txt');
      // stdout and stderr on the same terminal, in the order a person sees them.
      const command = `echo $$ > '${pidFile}'; exec '${process.execPath}' '${MAIN}'`;
      const child = onTerminal(command, serverEnv(dataDir, port));
      const output = collect(child);
      const exited = exitOf(child);
      const base = `http://127.0.0.1:${port}`;
      let screen = '';
      try {
        await waitReady(base, () => child.exitCode === null);
        // Ready is answered before main() prints; wait for the banner's last line, then a moment
        // for anything the logger still had to write.
        const deadline = Date.now() + STARTUP_TIMEOUT_MS;
        while (!output.out().includes('Demo tokens   ') && Date.now() < deadline) await delay(100);
        await delay(1_000);
        screen = output.out();
      } finally {
        const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
        stop(pid, child);
        await exited;
      }
      // A terminal shows colours; oidc-provider's runtime notice comes in red on Node 20.
      const lines = ourLines(
        screen.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), ''),
      );
      const banner = bannerOf(base, dataDir);
      expect(lines.slice(-banner.length)).toEqual(banner);
      // Everything above it is the JSON log, the URLs included.
      const logs = expectJsonOnly(lines.slice(0, -banner.length).join('\n'));
      expect(logs.map((l) => String(l.msg))).toContain(`Admin console: ${base}/admin/`);
    },
  );

  it(
    'stdout a terminal, LOG_LEVEL=warn: the banner on stderr still names the URLs; stdout stays JSON',
    ON_A_TERMINAL,
    async () => {
      const port = await freePort();
      const dataDir = inWork('tty');
      const errFile = inWork('tty-stderr.txt');
      const pidFile = inWork('tty-pid.txt');
      // Which stream the banner goes to does not depend on a first start (the case above is one):
      // this start begins from the run's migrated template, sparing initdb and the migrations.
      await seedEmbeddedDataDir(dataDir);
      // The shell records its pid, then becomes the server (exec): that pid is the server's.
      const command = `echo $$ > '${pidFile}'; exec '${process.execPath}' '${MAIN}' 2> '${errFile}'`;
      const child = onTerminal(command, serverEnv(dataDir, port, { LOG_LEVEL: 'warn' }));
      const output = collect(child);
      const exited = exitOf(child);
      try {
        await waitReady(`http://127.0.0.1:${port}`, () => child.exitCode === null);
      } finally {
        const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
        stop(pid, child);
        await exited;
      }
      const base = `http://127.0.0.1:${port}`;
      expect(ourLines(await readFile(errFile, 'utf8'))).toEqual(bannerOf(base, dataDir));
      // LOG_LEVEL=warn: nothing at info on stdout, and whatever is there is JSON.
      const logs = expectJsonOnly(output.out());
      expect(logs.filter((l) => typeof l.level === 'number' && l.level < 40)).toEqual([]);
    },
  );
});
