// Types of server-process.mjs (plain ESM, so node scripts run it as it is).
import type { ChildProcess } from 'node:child_process';

export const REPO_ROOT: string;

export function builtPaths(root?: string): { main: string; migrate: string };
export function requireBuilt(root?: string): void;
export function freePort(): Promise<number>;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface LaunchOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Between SIGTERM and SIGKILL in `stop()` (default 15 s). */
  graceMs?: number;
  /** Also write the child's lines to ours, prefixed with `[label]`. */
  echo?: boolean;
}

export interface ProcessHandle {
  label: string;
  child: ChildProcess;
  pid: number | undefined;
  exited: Promise<Exit>;
  /** Everything the child wrote to stdout so far. */
  stdout: () => string;
  stderr: () => string;
  /** The last 16 kB of both. */
  tail: () => string;
  waitForLine: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpExecArray>;
  /** SIGTERM, then SIGKILL after the grace period; resolves once it exited. */
  stop: () => Promise<void>;
}

export function launch(
  label: string,
  command: string,
  args: readonly string[],
  options?: LaunchOptions,
): ProcessHandle;
export function runToEnd(
  label: string,
  command: string,
  args: readonly string[],
  options?: LaunchOptions,
): Promise<number>;
export function waitForHttp(
  handle: ProcessHandle,
  url: string,
  options?: { timeoutMs?: number; ready?: () => boolean; intervalMs?: number },
): Promise<void>;

export interface FreshDatabase {
  name: string;
  url: string;
  version: string;
  drop: () => Promise<void>;
}
export function freshDatabase(adminUrl: string, prefix: string): Promise<FreshDatabase>;
export function migrateBuilt(options: {
  root?: string;
  databaseUrl: string;
  /** Over this process's environment (minus what describes another server). */
  env?: Record<string, string>;
}): Promise<void>;

export interface ServerDatabase {
  /** A migrated database. */
  url: string;
  /** SEED_DEMO (default true); false for a second replica of a seeded database. */
  seed?: boolean;
}

export function serverEnv(options: {
  port: number;
  dataDir: string;
  database?: ServerDatabase;
  env?: Record<string, string>;
}): NodeJS.ProcessEnv;

export interface StartOptions {
  /** The checkout whose dist/ runs (default: this one). */
  root?: string;
  label?: string;
  dataDir: string;
  /** Undefined: the embedded engine under dataDir. */
  database?: ServerDatabase;
  /** Set last, over the defaults. */
  env?: Record<string, string>;
  nodeArgs?: readonly string[];
  port?: number;
  timeoutMs?: number;
  graceMs?: number;
}

/** The demo tokens file's `tokens` (by name; @app/demo's DemoTokenSecrets has the names). */
export type DemoTokens = Record<string, string>;

export interface StartedServer extends ProcessHandle {
  url: string;
  port: number;
  env: NodeJS.ProcessEnv;
  /** When the server seeded the demo organisation. */
  tokens: DemoTokens | undefined;
}

export function startBuiltServer(options: StartOptions): Promise<StartedServer>;

export interface Stoppable {
  label: string;
  stop: () => Promise<void>;
}
export function stopAll(started: Stoppable[], log: (line: string) => void): Promise<void>;
export function stopOnSignals(
  started: Stoppable[],
  log: (line: string) => void,
): { stopping: () => boolean; abort: (code: number, line: string) => void };
