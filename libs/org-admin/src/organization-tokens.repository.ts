import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { Scope, TokenKind } from '@app/identity';
import { CURSOR_TIMESTAMP_SQL } from '@app/rest-contract';

export interface TokenRow {
  id: string;
  user_id: string;
  kind: TokenKind;
  name: string;
  client_name: string | null;
  token_prefix: string;
  scopes: Scope[];
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
  cursor_ts: string;
}

const COLUMNS = `id, user_id, kind, name, client_name, token_prefix, scopes, expires_at, revoked_at, last_used_at,
  created_at, ${CURSOR_TIMESTAMP_SQL('created_at')} AS cursor_ts`;

/** Token administration SQL on `api_tokens` (never the secret hash). Creation is TokensService's. */
@Injectable()
export class OrganizationTokensRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  list(
    organizationId: string,
    f: { userId?: string; after?: readonly string[]; take: number },
  ): Promise<TokenRow[]> {
    const params: unknown[] = [organizationId];
    const where = ['organization_id = $1'];
    if (f.userId !== undefined) {
      params.push(f.userId);
      where.push(`user_id = $${params.length}::uuid`);
    }
    if (f.after !== undefined) {
      params.push(f.after[0], f.after[1]);
      where.push(
        `(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`,
      );
    }
    params.push(f.take);
    return this.ds.query<TokenRow[]>(
      `SELECT ${COLUMNS} FROM api_tokens WHERE ${where.join(' AND ')}
        ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
  }

  async lock(tx: EntityManager, organizationId: string, id: string): Promise<TokenRow | undefined> {
    const rows = await tx.query<TokenRow[]>(
      `SELECT ${COLUMNS} FROM api_tokens WHERE organization_id = $1 AND id = $2 FOR UPDATE`,
      [organizationId, id],
    );
    return rows[0];
  }

  async findById(
    tx: EntityManager,
    organizationId: string,
    id: string,
  ): Promise<TokenRow | undefined> {
    const rows = await tx.query<TokenRow[]>(
      `SELECT ${COLUMNS} FROM api_tokens WHERE organization_id = $1 AND id = $2`,
      [organizationId, id],
    );
    return rows[0];
  }

  /** Conditional: only a live token is revoked; the row when this call revoked it. */
  async revoke(
    tx: EntityManager,
    organizationId: string,
    id: string,
  ): Promise<TokenRow | undefined> {
    const [rows] = await tx.query<[TokenRow[], number]>(
      `UPDATE api_tokens SET revoked_at = now() WHERE organization_id = $1 AND id = $2 AND revoked_at IS NULL
       RETURNING ${COLUMNS}`,
      [organizationId, id],
    );
    return rows[0];
  }
}
