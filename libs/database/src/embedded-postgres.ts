import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * Real Postgres (PGlite, WebAssembly) served on a loopback port, so the app reaches it with the
 * ordinary `pg` driver and TypeORM exactly as it reaches a production Postgres. Queries from
 * different connections are serialised by the socket server, so transactions stay isolated.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly url: string,
  ) {}

  /** `dataDir` keeps the data across restarts; `undefined` keeps it in memory (tests). */
  static async start(
    options: { dataDir?: string; maxConnections?: number } = {},
  ): Promise<EmbeddedPostgres> {
    let dataDir: string | undefined;
    if (options.dataDir !== undefined) {
      dataDir = resolve(options.dataDir);
      await mkdir(dataDir, { recursive: true });
    }
    // The extensions the migrations create (CREATE EXTENSION) must be bundled into PGlite.
    const extensions = { pg_trgm };
    const db =
      dataDir === undefined
        ? await PGlite.create({ extensions })
        : await PGlite.create({ dataDir, extensions });
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
    return new EmbeddedPostgres(db, server, `postgres://postgres@127.0.0.1:${port}/postgres`);
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
  }
}
