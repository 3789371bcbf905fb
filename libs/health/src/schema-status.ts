import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { pendingMigrations } from '@app/database';

/** What readiness learns about the database schema. */
export type SchemaCheck = { current: true } | { current: false; pending: string[] };

/**
 * Whether the database schema is the one this build expects: every migration it ships has run.
 * A server whose schema is behind answers every authenticated request with a 500 (`relation …
 * does not exist`), so readiness stays 503 until the migrations have run — it never runs them
 * itself, and never `synchronize`. Once current, the schema stays current for the life of the
 * process (a newer migration comes with a newer build), so the answer is remembered.
 */
@Injectable()
export class SchemaStatus {
  private readonly logger = new Logger('Readiness');
  private current = false;
  /** The pending list last logged, so a readiness probe every few seconds logs a change once. */
  private lastLogged = '';

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async check(): Promise<SchemaCheck> {
    if (this.current) return { current: true };
    const pending = await pendingMigrations(this.ds);
    if (pending.length === 0) {
      this.current = true;
      if (this.lastLogged !== '')
        this.logger.log('Database schema is current: every migration has run; ready');
      return { current: true };
    }
    const key = pending.join(',');
    if (key !== this.lastLogged) {
      this.lastLogged = key;
      this.logger.warn(
        `Not ready: the database schema is behind, ${pending.length} migration(s) pending (${pending.join(', ')}); run the migrations (\`npm run migration:run\`, or the migration Job) — the server never runs them itself`,
      );
    }
    return { current: false, pending };
  }
}
