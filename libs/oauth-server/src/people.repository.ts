import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { purgeExpiredRows } from '@app/database';

export interface SessionRow {
  id: string;
  user_id: string;
  expires_at: Date;
}

/** All SQL about people signing in: their sessions and one-time sign-in links. */
@Injectable()
export class PeopleRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insertSession(userId: string, secretHash: string, ttlSeconds: number): Promise<SessionRow> {
    const rows = await this.ds.query<SessionRow[]>(
      `INSERT INTO person_sessions (user_id, secret_hash, expires_at)
       VALUES ($1, $2, now() + make_interval(secs => $3))
       RETURNING id, user_id, expires_at`,
      [userId, secretHash, ttlSeconds],
    );
    return rows[0];
  }

  /** A live session by its secret's hash (not ended, not expired). */
  async findLiveSession(secretHash: string): Promise<SessionRow | undefined> {
    const rows = await this.ds.query<SessionRow[]>(
      `SELECT id, user_id, expires_at FROM person_sessions
        WHERE secret_hash = $1 AND ended_at IS NULL AND expires_at > now()`,
      [secretHash],
    );
    return rows[0];
  }

  async endSession(secretHash: string): Promise<void> {
    await this.ds.query(
      `UPDATE person_sessions SET ended_at = now() WHERE secret_hash = $1 AND ended_at IS NULL`,
      [secretHash],
    );
  }

  /** `tx`: inside the caller's transaction (with the mail that carries the link). */
  async insertSignInLink(
    userId: string,
    secretHash: string,
    returnTo: string | null,
    ttlSeconds: number,
    tx: EntityManager = this.ds.manager,
  ): Promise<Date> {
    const rows = await tx.query<{ expires_at: Date }[]>(
      `INSERT INTO sign_in_links (user_id, secret_hash, return_to, expires_at)
       VALUES ($1, $2, $3, now() + make_interval(secs => $4))
       RETURNING expires_at`,
      [userId, secretHash, returnTo, ttlSeconds],
    );
    return rows[0].expires_at;
  }

  /**
   * Uses a sign-in link: one conditional UPDATE, so exactly one request wins even across
   * replicas. `undefined`: unknown, already used or expired (see {@link describeSignInLink}).
   */
  async consumeSignInLink(
    secretHash: string,
  ): Promise<{ user_id: string; return_to: string | null } | undefined> {
    // An UPDATE … RETURNING answers [rows, affected] through TypeORM's postgres driver.
    const [rows] = await this.ds.query<[{ user_id: string; return_to: string | null }[], number]>(
      `UPDATE sign_in_links SET used_at = now()
        WHERE secret_hash = $1 AND used_at IS NULL AND expires_at > now()
        RETURNING user_id, return_to`,
      [secretHash],
    );
    return rows[0];
  }

  /** Why a link cannot be used, for the page that says so, and whose it was. */
  async describeSignInLink(
    secretHash: string,
  ): Promise<{ state: 'unknown' } | { state: 'used' | 'expired' | 'valid'; userId: string }> {
    const rows = await this.ds.query<{ user_id: string; used: boolean; expired: boolean }[]>(
      `SELECT user_id, used_at IS NOT NULL AS used, expires_at <= now() AS expired
         FROM sign_in_links WHERE secret_hash = $1`,
      [secretHash],
    );
    const row = rows[0];
    if (row === undefined) return { state: 'unknown' };
    const state = row.used ? 'used' : row.expired ? 'expired' : 'valid';
    return { state, userId: row.user_id };
  }

  /** Deletes at most `limit` sign-in links that expired more than a day ago; returns how many. */
  purgeExpiredSignInLinks(limit: number): Promise<number> {
    return purgeExpiredRows(this.ds, 'sign_in_links', 'id', limit);
  }

  /**
   * Deletes at most `limit` person sessions that expired more than a day ago (signed-out ones
   * too: they keep their expiry); returns how many.
   */
  purgeExpiredSessions(limit: number): Promise<number> {
    return purgeExpiredRows(this.ds, 'person_sessions', 'id', limit);
  }
}
