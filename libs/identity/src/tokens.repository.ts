import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, IsNull, Repository, type EntityManager } from 'typeorm';
import type { MembershipStatus, Permission, Role, Scope, TokenKind } from './access-vocabulary.js';
import { ApiTokenEntity } from './entities.js';

export interface PrincipalRow {
  token_id: string;
  kind: TokenKind;
  scopes: Scope[];
  client_name: string | null;
  audience: string | null;
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

/** All SQL about API tokens. The principal lookup is one indexed query (unique secret hash). */
@Injectable()
export class TokensRepository {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @InjectRepository(ApiTokenEntity) private readonly tokens: Repository<ApiTokenEntity>,
  ) {}

  async findPrincipalBySecretHash(hash: string): Promise<PrincipalRow | undefined> {
    const rows = await this.ds.query<PrincipalRow[]>(
      `SELECT t.id AS token_id, t.kind, t.scopes, t.client_name, t.audience, t.expires_at, t.revoked_at, t.last_used_at,
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

  /** `tx`: insert inside the caller's transaction (e.g. together with its audit event). */
  async insert(
    values: Omit<
      ApiTokenEntity,
      | 'id'
      | 'createdAt'
      | 'lastUsedAt'
      | 'revokedAt'
      | 'oauthGrantId'
      | 'oauthClientId'
      | 'audience'
    > &
      Partial<Pick<ApiTokenEntity, 'audience'>>,
    tx?: EntityManager,
  ): Promise<Omit<ApiTokenEntity, 'secretHash'>> {
    const repo = tx === undefined ? this.tokens : tx.getRepository(ApiTokenEntity);
    const saved = await repo.save(
      repo.create({
        audience: null,
        ...values,
        oauthGrantId: null,
        oauthClientId: null,
        lastUsedAt: null,
        revokedAt: null,
      }),
    );
    const { secretHash: _omit, ...rest } = saved;
    return rest;
  }

  listForOrganization(organizationId: string): Promise<ApiTokenEntity[]> {
    return this.tokens.find({ where: { organizationId }, order: { createdAt: 'DESC', id: 'ASC' } });
  }

  findInOrganization(organizationId: string, id: string): Promise<ApiTokenEntity | null> {
    return this.tokens.findOne({ where: { organizationId, id } });
  }

  /** Conditional: only a live token is revoked; returns whether this call revoked it. */
  async revoke(organizationId: string, id: string): Promise<boolean> {
    const r = await this.tokens.update(
      { organizationId, id, revokedAt: IsNull() },
      { revokedAt: () => 'now()' },
    );
    return (r.affected ?? 0) === 1;
  }
}
