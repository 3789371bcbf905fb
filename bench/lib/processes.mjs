// Child processes for the benchmark: launch, wait, stop; free loopback ports; a fresh Postgres
// database; CPU and memory of a process read from /proc (Linux only).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import net from 'node:net';

/** Clock ticks per second for /proc/<pid>/stat utime/stime (USER_HZ; 100 on every Linux we run). */
const CLK_TCK = 100;

export function log(line) {
  process.stdout.write(`[bench] ${line}\n`);
}

export async function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

/**
 * Spawns a child with its output kept (last 16 kB) rather than printed; `stop()` sends SIGTERM and,
 * after `graceMs`, SIGKILL. `lines` resolves lines the child prints on stdout (for "ready" lines).
 */
export function launch(label, command, args, { cwd, env, graceMs = 15_000 } = {}) {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const early = []; // the first lines, for a wait that starts after they were printed
  const listeners = new Set();
  const keep = (chunk) => {
    const text = chunk.toString();
    tail = (tail + text).slice(-16_000);
    for (const line of text.split('\n')) {
      if (early.length < 50) early.push(line);
      for (const l of listeners) l(line);
    }
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit({ code, signal })),
  );
  return {
    label,
    child,
    pid: child.pid,
    exited,
    tail: () => tail,
    /** Resolves with the first stdout/stderr line matching `pattern` (or rejects on exit/timeout). */
    waitForLine(pattern, timeoutMs = 30_000) {
      return new Promise((resolveLine, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(
            new Error(`${label}: no line matching ${pattern} within ${timeoutMs} ms\n${tail}`),
          );
        }, timeoutMs);
        const listener = (line) => {
          const match = pattern.exec(line);
          if (match === null) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolveLine(match);
        };
        listeners.add(listener);
        for (const line of early) if (listeners.has(listener)) listener(line);
        void exited.then(({ code }) => {
          clearTimeout(timer);
          if (listeners.delete(listener)) reject(new Error(`${label} exited (${code}):\n${tail}`));
        });
      });
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function waitForHttp(handle, url, { timeoutMs = 120_000, ready = () => true } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (handle.child.exitCode !== null)
      throw new Error(`${handle.label} exited (${handle.child.exitCode}):\n${handle.tail()}`);
    try {
      const res = await fetch(url);
      if (res.ok && ready()) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${handle.label} not ready within ${timeoutMs / 1000} s:\n${handle.tail()}`);
}

/** A fresh database on the Postgres named by `adminUrl`; `drop()` removes it (WITH FORCE). */
export async function freshDatabase(adminUrl) {
  const { default: pg } = await import('pg');
  const name = `bench_${Date.now().toString(36)}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const { rows } = await admin.query('SELECT version() AS v');
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    version: rows[0].v,
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** utime + stime of a process (all its threads), in microseconds; `undefined` if it is gone. */
export function cpuMicros(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1e6) / CLK_TCK;
  } catch {
    return undefined;
  }
}

/** The pids of every process whose command name is `name` (e.g. the Postgres backends). */
export function pidsNamed(name) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** CPU of a changing set of processes: sum over pids alive at either end (new ones count from 0). */
export function groupCpuMicros(pids) {
  const out = new Map();
  for (const pid of pids) {
    const v = cpuMicros(pid);
    if (v !== undefined) out.set(pid, v);
  }
  return out;
}

export function groupDelta(before, after) {
  let total = 0;
  for (const [pid, v] of after) total += v - (before.get(pid) ?? 0);
  return total;
}

/** Resident set size and its peak, in MiB. */
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
  } catch {
    return { rssMiB: NaN, peakMiB: NaN };
  }
}

/**
 * The TCP ports a process listens on (IPv4 and IPv6), from its socket inodes and /proc/net/tcp*.
 * Used to find the embedded Postgres's port inside the server process.
 */
export function listeningPorts(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== '0A') continue; // 0A = LISTEN
      if (inodes.has(cols[9])) ports.add(parseInt(cols[1].split(':')[1], 16));
    }
  }
  return [...ports];
}
