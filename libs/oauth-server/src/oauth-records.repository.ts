import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { purgeExpiredRows } from '@app/database';

/** What `oidc-provider` stores about one of its models (grant, code, refresh token, client…). */
export type OidcPayload = Record<string, unknown>;

/**
 * All SQL of the authorization server's storage: `oauth_records` (every `oidc-provider` model,
 * keyed by the SHA-256 of its id, so a database read never yields a usable code or token) and the
 * signing keys. Access tokens are stored by identity's `TokensRepository` (they are `api_tokens`).
 */
@Injectable()
export class OAuthRecordsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async upsert(
    model: string,
    idHash: string,
    payload: OidcPayload,
    expiresInSeconds: number | undefined,
  ): Promise<void> {
    await this.ds.query(
      `INSERT INTO oauth_records (model, id, payload, grant_id, uid, user_code, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(secs => $7::int) END)
       ON CONFLICT (model, id) DO UPDATE
         SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid,
             user_code = EXCLUDED.user_code, expires_at = EXCLUDED.expires_at`,
      [
        model,
        idHash,
        JSON.stringify(payload),
        stringOrNull(payload.grantId),
        stringOrNull(payload.uid),
        stringOrNull(payload.userCode),
        expiresInSeconds ?? null,
      ],
    );
  }

  /**
   * Stores a record that must be new (the library's `ReplayDetection`: a proof's `jti`): false
   * when a live record with that id exists, whichever replica stored it, even a moment ago.
   */
  async insertOnce(
    model: string,
    idHash: string,
    payload: OidcPayload,
    expiresInSeconds: number | undefined,
  ): Promise<boolean> {
    const rows = await this.ds.query<unknown[]>(
      `INSERT INTO oauth_records (model, id, payload, expires_at)
       VALUES ($1, $2, $3, CASE WHEN $4::int IS NULL THEN NULL ELSE now() + make_interval(secs => $4::int) END)
       ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, expires_at = EXCLUDED.expires_at
         WHERE oauth_records.expires_at IS NOT NULL AND oauth_records.expires_at <= now()
       RETURNING 1`,
      [model, idHash, JSON.stringify(payload), expiresInSeconds ?? null],
    );
    return rows.length === 1;
  }

  async find(model: string, idHash: string): Promise<OidcPayload | undefined> {
    return this.first(
      `SELECT payload, consumed_at FROM oauth_records
        WHERE model = $1 AND id = $2 AND (expires_at IS NULL OR expires_at > now())`,
      [model, idHash],
    );
  }

  async findBy(
    model: string,
    column: 'uid' | 'user_code',
    value: string,
  ): Promise<OidcPayload | undefined> {
    return this.first(
      `SELECT payload, consumed_at FROM oauth_records
        WHERE model = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > now())`,
      [model, value],
    );
  }

  /**
   * Marks a record used, once: returns when, or `undefined` when it was already used (another
   * request got there first) or is gone.
   */
  async consume(model: string, idHash: string): Promise<Date | undefined> {
    const rows = await this.ds.query<{ consumed_at: Date }[]>(
      // Milliseconds, so that the instant read back into a Date names this very consumption.
      // (As a SELECT, so that the driver hands back the rows.)
      `WITH used AS (
         UPDATE oauth_records SET consumed_at = date_trunc('milliseconds', clock_timestamp())
          WHERE model = $1 AND id = $2 AND consumed_at IS NULL
          RETURNING consumed_at)
       SELECT consumed_at FROM used`,
      [model, idHash],
    );
    return rows[0]?.consumed_at;
  }

  /** Undoes {@link consume} of `consumedAt`, unless the record changed since. */
  async unconsume(model: string, idHash: string, consumedAt: Date): Promise<void> {
    await this.ds.query(
      `UPDATE oauth_records SET consumed_at = NULL
        WHERE model = $1 AND id = $2 AND consumed_at = $3`,
      [model, idHash, consumedAt],
    );
  }

  async destroy(model: string, idHash: string): Promise<void> {
    await this.ds.query(`DELETE FROM oauth_records WHERE model = $1 AND id = $2`, [model, idHash]);
  }

  /** A registered client a person authorized: it no longer expires. */
  async keepClient(idHash: string): Promise<void> {
    await this.ds.query(
      `UPDATE oauth_records SET expires_at = NULL
        WHERE model = 'Client' AND id = $1 AND expires_at IS NOT NULL`,
      [idHash],
    );
  }

  async destroyGrant(model: string, grantId: string): Promise<void> {
    await this.ds.query(`DELETE FROM oauth_records WHERE model = $1 AND grant_id = $2`, [
      model,
      grantId,
    ]);
  }

  /**
   * Deletes at most `limit` records that expired more than a day ago; returns how many. Rows
   * locked by another replica's sweep are skipped, not waited for.
   */
  purgeExpired(limit: number): Promise<number> {
    return purgeExpiredRows(this.ds, 'oauth_records', 'ctid', limit);
  }

  /** The signing keys (a JWKS of private keys), creating them once for every replica. */
  async signingKeys(generate: () => Promise<Record<string, unknown>>): Promise<unknown[]> {
    const read = async (): Promise<unknown[]> =>
      (
        await this.ds.query<{ jwk: unknown }[]>(
          `SELECT jwk FROM oauth_signing_keys ORDER BY created_at, id`,
        )
      ).map((r) => r.jwk);
    const existing = await read();
    if (existing.length > 0) return existing;
    const jwk = await generate();
    await this.ds.query(
      `INSERT INTO oauth_signing_keys (id, jwk) VALUES ('primary', $1) ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(jwk)],
    );
    return read();
  }

  private async first(sql: string, params: unknown[]): Promise<OidcPayload | undefined> {
    const rows = await this.ds.query<{ payload: OidcPayload; consumed_at: Date | null }[]>(
      sql,
      params,
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return row.consumed_at === null
      ? row.payload
      : { ...row.payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) };
  }
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
