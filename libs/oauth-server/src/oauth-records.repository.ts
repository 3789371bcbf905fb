import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Scope } from '@app/identity';

/** What `oidc-provider` stores about one of its models (grant, code, refresh token, client…). */
export type OidcPayload = Record<string, unknown>;

/** The `api_tokens` row an OAuth access token is, bound to its grant, client and audience. */
export interface OAuthAccessTokenRow {
  membershipId: string;
  grantId: string;
  clientId: string;
  clientName: string;
  audience: string;
  scopes: Scope[];
  secretHash: string;
  tokenPrefix: string;
  expiresInSeconds: number;
}

/**
 * All SQL of the authorization server's storage: `oauth_records` (every `oidc-provider` model,
 * keyed by the SHA-256 of its id, so a database read never yields a usable code or token), the
 * signing keys, and the OAuth rows of `api_tokens`.
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

  async consume(model: string, idHash: string): Promise<void> {
    await this.ds.query(
      `UPDATE oauth_records SET consumed_at = now() WHERE model = $1 AND id = $2 AND consumed_at IS NULL`,
      [model, idHash],
    );
  }

  async destroy(model: string, idHash: string): Promise<void> {
    await this.ds.query(`DELETE FROM oauth_records WHERE model = $1 AND id = $2`, [model, idHash]);
  }

  async destroyGrant(model: string, grantId: string): Promise<void> {
    await this.ds.query(`DELETE FROM oauth_records WHERE model = $1 AND grant_id = $2`, [
      model,
      grantId,
    ]);
  }

  /** Removes what expired more than a day ago (bounded, so a call stays short). */
  async purgeExpired(limit = 1000): Promise<void> {
    await this.ds.query(
      `DELETE FROM oauth_records WHERE ctid IN (
         SELECT ctid FROM oauth_records WHERE expires_at < now() - interval '1 day' LIMIT $1)`,
      [limit],
    );
  }

  /**
   * Stores an access token as the `api_tokens` row of its grant: the first token of a grant
   * inserts it; a later one (after a refresh) replaces its secret and expiry, so the previous
   * access token stops working. Person and organisation come from the membership the grant was
   * given for. Returns false when that membership no longer exists or the grant was revoked.
   */
  async upsertAccessToken(row: OAuthAccessTokenRow): Promise<boolean> {
    const rows = await this.ds.query<{ id: string }[]>(
      `INSERT INTO api_tokens (organization_id, user_id, kind, name, client_name, token_prefix, secret_hash,
                               scopes, expires_at, oauth_grant_id, oauth_client_id, audience)
       SELECT m.organization_id, m.user_id, 'oauth', $2, $2, $3, $4, $5::text[],
              now() + make_interval(secs => $6), $7, $8, $9
         FROM memberships m WHERE m.id = $1
       ON CONFLICT (oauth_grant_id) WHERE oauth_grant_id IS NOT NULL DO UPDATE
         SET token_prefix = EXCLUDED.token_prefix, secret_hash = EXCLUDED.secret_hash,
             scopes = EXCLUDED.scopes, expires_at = EXCLUDED.expires_at
         WHERE api_tokens.revoked_at IS NULL
       RETURNING id`,
      [
        row.membershipId,
        row.clientName,
        row.tokenPrefix,
        row.secretHash,
        row.scopes,
        row.expiresInSeconds,
        row.grantId,
        row.clientId,
        row.audience,
      ],
    );
    return rows.length === 1;
  }

  /** RFC 7009 revocation of one access token: it expires now; its grant lives on. */
  async expireAccessToken(secretHash: string): Promise<void> {
    await this.ds.query(
      `UPDATE api_tokens SET expires_at = now()
        WHERE secret_hash = $1 AND kind = 'oauth' AND (expires_at IS NULL OR expires_at > now())`,
      [secretHash],
    );
  }

  /**
   * Revokes a grant's access token row. A trigger on `api_tokens` then deletes every record of
   * the grant (refresh tokens, codes, the grant), whichever path revoked it.
   */
  async revokeGrant(grantId: string): Promise<void> {
    await this.ds.query(
      `UPDATE api_tokens SET revoked_at = now() WHERE oauth_grant_id = $1 AND revoked_at IS NULL`,
      [grantId],
    );
  }

  /** The membership an account id names, with the person (for `findAccount`). */
  async findMembership(
    membershipId: string,
  ): Promise<{ user_id: string; email: string; name: string } | undefined> {
    if (!UUID.test(membershipId)) return undefined;
    const rows = await this.ds.query<{ user_id: string; email: string; name: string }[]>(
      `SELECT u.id AS user_id, u.email, u.name FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.id = $1`,
      [membershipId],
    );
    return rows[0];
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
