// The benchmark's log line, and CPU, memory and listening ports of a process read from /proc
// (Linux only). Starting and stopping processes is the shared starter's
// (test/support/server-process.mjs).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Clock ticks per second for /proc/<pid>/stat utime/stime (USER_HZ; 100 on every Linux we run). */
const CLK_TCK = 100;

export function log(line) {
  process.stdout.write(`[bench] ${line}\n`);
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
