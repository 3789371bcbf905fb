import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { purgeExpiredRows } from '@app/database';

/** One insert in this many also deletes expired entries, so the table stays as small as the traffic. */
const PURGE_EVERY = 64;
const PURGE_BATCH = 500;

/**
 * The DPoP proofs accepted (`dpop_proofs_seen`), shared by every replica through Postgres: a proof
 * is accepted once until its `iat` leaves the window. Expired entries are deleted by the inserts
 * themselves (one in {@link PURGE_EVERY} deletes up to {@link PURGE_BATCH}), so no timer is needed
 * and the table is bounded by the proofs of one window.
 */
@Injectable()
export class DpopProofsRepository {
  private inserts = 0;

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** True when `key` was not seen (or its entry expired): it is now remembered until `until`. */
  async firstUse(key: string, until: Date): Promise<boolean> {
    const rows = await this.ds.query<unknown[]>(
      `INSERT INTO dpop_proofs_seen (key, expires_at) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at
         WHERE dpop_proofs_seen.expires_at <= now()
       RETURNING 1`,
      [key, until],
    );
    this.inserts += 1;
    if (this.inserts % PURGE_EVERY === 0)
      await purgeExpiredRows(this.ds, 'dpop_proofs_seen', 'key', PURGE_BATCH, 0);
    return rows.length === 1;
  }
}
