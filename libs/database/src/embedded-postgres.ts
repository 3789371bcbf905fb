import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { access, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { NotificationScanner } from './notification-scanner.js';

/**
 * The whole `postgresql.conf` of the embedded engine (PGlite writes it on every start, so a
 * changed setting reaches existing data directories). Postgres' shared memory lives in the
 * WebAssembly heap, is written when the engine starts and is never given back, so every MB of it
 * is resident for the life of the process (docs/adr/0003, "Memory"). `shared_buffers` (default
 * 128 MB) is kept small: the database is ~9 MB after seeding and ~13 MB after a benchmark, and a
 * page outside the buffers comes from the OS page cache. `max_connections` sizes the lock and
 * process tables, though PGlite is one backend session whatever the socket server accepts.
 * Shared memory: 44 MB with 32MB / 100, 12 MB with these (`pg_shmem_allocations`).
 */
const SETTINGS = ['shared_buffers = 8MB', 'max_connections = 8'];

/**
 * Creates the cluster in `dataDir` in a short-lived Node process. initdb runs in a WebAssembly
 * instance of its own; in this process it would leave ~450 MiB of RSS behind for good (closing
 * it, even in a worker thread, does not give the memory back to the OS), so a server that created
 * its data directory would run at twice the memory of one that found it.
 */
async function initdbInChildProcess(dataDir: string): Promise<void> {
  const pglite = pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  const script = [
    'const [url, dir, settings] = process.argv.slice(1);',
    'const { PGlite } = await import(url);',
    'const db = await PGlite.create({ dataDir: dir, postgresqlconf: JSON.parse(settings) });',
    'await db.close();',
  ].join('\n');
  try {
    await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script, pglite.href, dataDir, JSON.stringify(SETTINGS)],
      { timeout: 120_000 },
    );
  } catch (err) {
    const stderr = typeof err === 'object' && err !== null && 'stderr' in err ? err.stderr : '';
    throw new Error(`Creating the embedded database in ${dataDir} failed: ${String(stderr)}`, {
      cause: err,
    });
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Real Postgres (PGlite, WebAssembly) served on a loopback port, so the app reaches it with the
 * ordinary `pg` driver and TypeORM exactly as it reaches a production Postgres. Queries from
 * different connections are serialised by the socket server, so transactions stay isolated.
 */
export class EmbeddedPostgres {
  /** The engines running in this process, by URL (see {@link EmbeddedPostgres.at}). */
  private static readonly running = new Map<string, EmbeddedPostgres>();
  private readonly listened = new Set<string>();

  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly url: string,
    private readonly notifications: EventEmitter,
  ) {}

  /** The embedded engine of this process that serves `url`, if any. */
  static at(url: string): EmbeddedPostgres | undefined {
    return EmbeddedPostgres.running.get(url);
  }

  /**
   * Every NOTIFY on `channel` from now on, whichever connection sent it. The engine has one
   * session for all its connections, so Postgres hands a notification to the connection whose
   * transaction sent it; `start` taps every response instead. Returns the unsubscribe function.
   */
  async listen(channel: string, listener: (payload: string) => void): Promise<() => void> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Invalid channel name: ${channel}`);
    if (!this.listened.has(channel)) {
      await this.db.exec(`LISTEN ${channel}`);
      this.listened.add(channel);
    }
    this.notifications.on(channel, listener);
    return () => this.notifications.off(channel, listener);
  }

  /**
   * `dataDir` keeps the data across restarts; `undefined` keeps it in memory (tests). `from`
   * starts an in-memory engine on a copy of another engine's data directory ({@link snapshot}):
   * the tests clone one migrated database per file instead of running initdb (most of a start's
   * cost) and every migration again.
   */
  static async start(
    options: { dataDir?: string; maxConnections?: number; from?: Blob } = {},
  ): Promise<EmbeddedPostgres> {
    let dataDir: string | undefined;
    if (options.dataDir !== undefined) {
      dataDir = resolve(options.dataDir);
      await mkdir(dataDir, { recursive: true });
    }
    // The extensions the migrations create (CREATE EXTENSION) must be bundled into PGlite.
    const extensions = { pg_trgm };
    if (dataDir !== undefined && !(await exists(join(dataDir, 'PG_VERSION'))))
      await initdbInChildProcess(dataDir);
    if (dataDir !== undefined && options.from !== undefined)
      throw new Error('EmbeddedPostgres.start: `from` is for in-memory engines only');
    const db =
      dataDir === undefined
        ? await PGlite.create({ extensions, postgresqlconf: SETTINGS, loadDataDir: options.from })
        : await PGlite.create({ dataDir, extensions, postgresqlconf: SETTINGS });
    const notifications = new EventEmitter();
    notifications.setMaxListeners(0);
    tapNotifications(db, (channel, payload) => notifications.emit(channel, payload));
    const server = new PGLiteSocketServer({
      db,
      host: '127.0.0.1',
      port: 0,
      maxConnections: options.maxConnections ?? 32,
    });
    await server.start();
    const conn = server.getServerConn();
    const port = Number(conn.slice(conn.lastIndexOf(':') + 1));
    if (!Number.isInteger(port) || port <= 0)
      throw new Error(`Embedded Postgres gave no port (${conn})`);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const embedded = new EmbeddedPostgres(db, server, url, notifications);
    EmbeddedPostgres.running.set(url, embedded);
    return embedded;
  }

  /**
   * The whole data directory as a tar archive, for {@link start}'s `from`. Checkpointed first,
   * so that a copy starts without replaying the write-ahead log.
   */
  async snapshot(): Promise<Blob> {
    await this.db.exec('CHECKPOINT');
    return this.db.dumpDataDir('none');
  }

  async stop(): Promise<void> {
    EmbeddedPostgres.running.delete(this.url);
    this.notifications.removeAllListeners();
    await this.server.stop();
    await this.db.close();
  }
}

/**
 * Scans every response the socket server relays (it runs each client message through
 * `execProtocolRawStream`) for notifications. A scanner per message: each response ends on a
 * message boundary.
 */
function tapNotifications(db: PGlite, emit: (channel: string, payload: string) => void): void {
  const relay = db.execProtocolRawStream.bind(db);
  db.execProtocolRawStream = (message, options) => {
    const scanner = new NotificationScanner(emit);
    return relay(message, {
      ...options,
      onRawData: (chunk: Uint8Array) => {
        scanner.push(chunk);
        options?.onRawData?.(chunk);
      },
    });
  };
}
