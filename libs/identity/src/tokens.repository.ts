import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { MembershipStatus, Permission, Role, Scope, TokenKind } from '@app/access-vocabulary';
import {
  camelCasedRows,
  firstRowAs,
  organizationRow,
  returnedRow,
  type RowSource,
} from '@app/database';
import { equals, listedAs, newestFirstQuery, type Listed } from '@app/rest-contract';
import type { ApiToken } from './identity.types.js';

export interface PrincipalRow {
  token_id: string;
  kind: TokenKind;
  token_name: string;
  scopes: Scope[];
  client_name: string | null;
  audience: string | null;
  dpop_jkt: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  organization_id: string;
  organization_slug: string;
  user_id: string;
  user_email: string;
  user_name: string;
  membership_id: string | null;
  membership_status: MembershipStatus | null;
  membership_role: Role | null;
  permissions: Permission[] | null;
}

/** A token to store: its secret only as the hash. */
export type NewToken = Pick<
  ApiToken,
  | 'organizationId'
  | 'userId'
  | 'kind'
  | 'name'
  | 'clientName'
  | 'tokenPrefix'
  | 'expiresAt'
  | 'audience'
> & {
  secretHash: string;
  scopes: readonly Scope[];
};

/**
 * An OAuth access token as the `api_tokens` row of its grant (one row per grant), bound to the
 * membership the grant was given for, its client and its audience.
 */
export interface OAuthAccessToken {
  membershipId: string;
  grantId: string;
  clientId: string;
  clientName: string;
  audience: string;
  /** The key the token is bound to (DPoP `cnf.jkt`), when the client proved one. */
  dpopJkt: string | null;
  scopes: Scope[];
  secretHash: string;
  tokenPrefix: string;
  expiresInSeconds: number;
}

interface TokenRow {
  id: string;
  organization_id: string;
  user_id: string;
  kind: TokenKind;
  name: string;
  client_name: string | null;
  token_prefix: string;
  scopes: Scope[];
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  oauth_grant_id: string | null;
  oauth_client_id: string | null;
  audience: string | null;
  created_at: Date;
}

/** Every column but the secret hash, which no query hands out. */
const COLUMNS = `id, organization_id, user_id, kind, name, client_name, token_prefix, scopes, expires_at,
  revoked_at, last_used_at, oauth_grant_id, oauth_client_id, audience, created_at`;
const TOKENS: RowSource = { table: 'api_tokens', columns: COLUMNS };
const toApiToken: (r: TokenRow) => ApiToken = camelCasedRows(COLUMNS);

/**
 * All SQL about API tokens (`api_tokens`), personal and OAuth. The principal lookup is one indexed query (unique secret hash). `tx`: run inside
 * the caller's transaction (e.g. together with its audit event); locking reads need one.
 */
@Injectable()
export class TokensRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async findPrincipalBySecretHash(hash: string): Promise<PrincipalRow | undefined> {
    const rows = await this.ds.query<PrincipalRow[]>(
      `SELECT t.id AS token_id, t.kind, t.name AS token_name, t.scopes, t.client_name, t.audience, t.dpop_jkt, t.expires_at, t.revoked_at, t.last_used_at,
              t.organization_id, o.slug AS organization_slug, t.user_id, u.email AS user_email, u.name AS user_name,
              m.id AS membership_id, m.status AS membership_status, m.role AS membership_role, m.permissions
         FROM api_tokens t
         JOIN organizations o ON o.id = t.organization_id
         JOIN users u ON u.id = t.user_id
         LEFT JOIN memberships m ON m.organization_id = t.organization_id AND m.user_id = t.user_id
        WHERE t.secret_hash = $1`,
      [hash],
    );
    return rows[0];
  }

  /** Records use at most once a minute per token, so the hot path rarely writes. */
  async touch(tokenId: string): Promise<void> {
    await this.ds.query(
      `UPDATE api_tokens SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [tokenId],
    );
  }

  async insert(values: NewToken, tx?: EntityManager): Promise<ApiToken> {
    const rows = await (tx ?? this.ds).query<TokenRow[]>(
      `INSERT INTO api_tokens (organization_id, user_id, kind, name, client_name, token_prefix, secret_hash,
              scopes, expires_at, audience)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text[], $9, $10)
       RETURNING ${COLUMNS}`,
      [
        values.organizationId,
        values.userId,
        values.kind,
        values.name,
        values.clientName,
        values.tokenPrefix,
        values.secretHash,
        [...values.scopes],
        values.expiresAt,
        values.audience,
      ],
    );
    return toApiToken(returnedRow(rows));
  }

  /** One page of the organisation's tokens, newest first. */
  async list(
    organizationId: string,
    f: { userId?: string; after?: readonly string[]; take: number },
  ): Promise<Listed<ApiToken>[]> {
    const q = newestFirstQuery({
      from: 'api_tokens',
      columns: COLUMNS,
      organizationId,
      conditions: [equals('user_id', f.userId, '::uuid')],
      window: f,
    });
    const rows = await this.ds.query<Array<TokenRow & { cursor_ts: string }>>(q.text, q.params);
    return listedAs(rows, toApiToken);
  }

  async findById(
    organizationId: string,
    id: string,
    tx?: EntityManager,
  ): Promise<ApiToken | undefined> {
    const row = await organizationRow<TokenRow>(tx ?? this.ds, TOKENS, organizationId, id);
    return row === undefined ? undefined : toApiToken(row);
  }

  /** The token, its row locked until `tx` ends. */
  async lock(tx: EntityManager, organizationId: string, id: string): Promise<ApiToken | undefined> {
    const row = await organizationRow<TokenRow>(tx, TOKENS, organizationId, id, { lock: true });
    return row === undefined ? undefined : toApiToken(row);
  }

  /** Conditional: only a live token is revoked; the row when this call revoked it. */
  async revoke(
    tx: EntityManager,
    organizationId: string,
    id: string,
  ): Promise<ApiToken | undefined> {
    const [rows] = await tx.query<[TokenRow[], number]>(
      `UPDATE api_tokens SET revoked_at = now()
        WHERE organization_id = $1 AND id = $2 AND revoked_at IS NULL
       RETURNING ${COLUMNS}`,
      [organizationId, id],
    );
    return firstRowAs(rows, toApiToken);
  }

  /**
   * Stores an OAuth access token as the row of its grant: the grant's first token inserts it; a
   * later one (after a refresh) replaces its secret and expiry, so the previous access token stops
   * working. Person and organisation come from the membership the grant was given for. False when
   * that membership no longer exists or the grant was revoked.
   */
  async upsertOAuthAccessToken(t: OAuthAccessToken): Promise<boolean> {
    const rows = await this.ds.query<{ id: string }[]>(
      `INSERT INTO api_tokens (organization_id, user_id, kind, name, client_name, token_prefix, secret_hash,
                               scopes, expires_at, oauth_grant_id, oauth_client_id, audience, dpop_jkt)
       SELECT m.organization_id, m.user_id, 'oauth', $2, $2, $3, $4, $5::text[],
              now() + make_interval(secs => $6), $7, $8, $9, $10
         FROM memberships m WHERE m.id = $1
       ON CONFLICT (oauth_grant_id) WHERE oauth_grant_id IS NOT NULL DO UPDATE
         SET token_prefix = EXCLUDED.token_prefix, secret_hash = EXCLUDED.secret_hash,
             scopes = EXCLUDED.scopes, expires_at = EXCLUDED.expires_at, dpop_jkt = EXCLUDED.dpop_jkt
         WHERE api_tokens.revoked_at IS NULL
       RETURNING id`,
      [
        t.membershipId,
        t.clientName,
        t.tokenPrefix,
        t.secretHash,
        t.scopes,
        t.expiresInSeconds,
        t.grantId,
        t.clientId,
        t.audience,
        t.dpopJkt,
      ],
    );
    return rows.length === 1;
  }

  /** RFC 7009 revocation of one OAuth access token: it expires now; its grant lives on. */
  async expireOAuthAccessToken(secretHash: string): Promise<void> {
    await this.ds.query(
      `UPDATE api_tokens SET expires_at = now()
        WHERE secret_hash = $1 AND kind = 'oauth' AND (expires_at IS NULL OR expires_at > now())`,
      [secretHash],
    );
  }

  /**
   * Revokes an OAuth grant's token row. A trigger on `api_tokens` then deletes every record of the
   * grant (refresh tokens, codes, the grant), whichever path revoked it.
   */
  async revokeOAuthGrant(grantId: string): Promise<void> {
    await this.ds.query(
      `UPDATE api_tokens SET revoked_at = now() WHERE oauth_grant_id = $1 AND revoked_at IS NULL`,
      [grantId],
    );
  }

  /** Names and kinds of an organisation's tokens by id (never anything secret). */
  describe(
    organizationId: string,
    ids: readonly string[],
  ): Promise<{ id: string; name: string; kind: TokenKind }[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.ds.query(
      `SELECT id, name, kind FROM api_tokens
        WHERE organization_id = $1 AND id = ANY($2::uuid[]) ORDER BY name`,
      [organizationId, [...ids]],
    );
  }
}
