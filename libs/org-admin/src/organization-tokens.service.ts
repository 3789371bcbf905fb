import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AuditTrail } from '@app/audit-trail';
import { DomainError } from '@app/errors';
import { scopeParts, scopesReach } from '@app/access-vocabulary';
import { RequestContext, TokensRepository, TokensService, type ApiToken } from '@app/identity';
import { readListedPage, type Page, type PageQueryDto, type Plain } from '@app/rest-contract';
import type {
  CreatedTokenDto,
  CreateTokenDto,
  ListTokensQueryDto,
  TokenDto,
  TokenStatus,
} from './token.dto.js';
import { tokenCreatedEvent } from './token-audit.js';

/**
 * API tokens of the caller's organisation (the routes need `org:admin` and the `admin` permission),
 * and each person's own tokens (`/v1/me/tokens`, any member).
 * A token can only create tokens that reach no further and live no longer than itself (no
 * escalation from a narrower or expiring token). The secret is returned once and never audited.
 */
@Injectable()
export class OrganizationTokensService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly tokens: TokensRepository,
    private readonly issuer: TokensService,
    private readonly audit: AuditTrail,
    private readonly context: RequestContext,
  ) {}

  list(query: ListTokensQueryDto): Promise<Page<Plain<TokenDto>>> {
    return this.page(query, query.user_id);
  }

  /** The caller's own tokens in this organisation (personal tokens and OAuth grants). */
  listOwn(query: PageQueryDto): Promise<Page<Plain<TokenDto>>> {
    return this.page(query, this.context.principal.userId);
  }

  async create(input: CreateTokenDto): Promise<Plain<CreatedTokenDto>> {
    const p = this.context.principal;
    const beyond = input.scopes.filter((s) => !scopesReach(p.scopes, ...scopeParts(s)));
    if (beyond.length > 0) {
      throw new DomainError(
        'insufficient_scope',
        `A token cannot create a token that reaches further than itself; this token does not carry ${beyond.join(', ')}. ` +
          'Use a token that carries those scopes.',
        { required_scope: beyond, token_kind: p.tokenKind, token_scopes: p.scopes },
      );
    }
    const expiresAt = input.expires_at == null ? null : new Date(input.expires_at);
    if (p.expiresAt !== null && (expiresAt === null || expiresAt > p.expiresAt)) {
      throw DomainError.validation([
        {
          field: 'expires_at',
          message: `must be set, and no later than ${p.expiresAt.toISOString()} (when the token making the request expires)`,
        },
      ]);
    }
    return this.ds.transaction(async (tx) => {
      const issued = await this.issuer.issue(
        {
          organizationId: p.organizationId,
          userId: p.userId,
          kind: 'personal',
          name: input.name,
          scopes: input.scopes,
          expiresAt,
        },
        tx,
      );
      const created = toTokenDto(issued.token);
      await this.audit.record(tx, tokenCreatedEvent(issued.token));
      return { ...created, secret: issued.secret };
    });
  }

  /**
   * Revokes one of the caller's own tokens; another person's token is NOT_FOUND (its existence
   * is not revealed). Revoking an OAuth grant's token ends the grant (access and refresh).
   */
  revokeOwn(id: string): Promise<Plain<TokenDto>> {
    return this.revoke(id, this.context.principal.userId);
  }

  /**
   * Revokes a live token (idempotent: an already revoked token is returned unchanged).
   * `ownerId`: only a token of this person (self-service).
   */
  revoke(id: string, ownerId?: string): Promise<Plain<TokenDto>> {
    const organizationId = this.context.organizationId;
    return this.ds.transaction(async (tx) => {
      const before = await this.tokens.lock(tx, organizationId, id);
      if (before === undefined || (ownerId !== undefined && before.userId !== ownerId))
        throw DomainError.notFound('Token');
      if (before.revokedAt !== null) return toTokenDto(before);
      const after = await this.tokens.revoke(tx, organizationId, id);
      if (after === undefined) throw DomainError.notFound('Token');
      await this.audit.record(tx, {
        action: 'token.revoked',
        resourceType: 'token',
        resourceId: id,
        resourceLabel: after.name,
        changes: { revoked_at: { before: null, after: after.revokedAt?.toISOString() ?? null } },
      });
      return toTokenDto(after);
    });
  }

  private page(query: PageQueryDto, userId?: string): Promise<Page<Plain<TokenDto>>> {
    return readListedPage(
      query,
      (window) => this.tokens.list(this.context.organizationId, { userId, ...window }),
      toTokenDto,
    );
  }
}

function statusOf(t: ApiToken): TokenStatus {
  if (t.revokedAt !== null) return 'revoked';
  if (t.expiresAt !== null && t.expiresAt.getTime() <= Date.now()) return 'expired';
  return 'active';
}

function iso(d: Date | null): string | null {
  return d === null ? null : d.toISOString();
}

function toTokenDto(t: ApiToken): Plain<TokenDto> {
  return {
    id: t.id,
    kind: t.kind,
    name: t.name,
    client_name: t.clientName,
    user_id: t.userId,
    token_prefix: t.tokenPrefix,
    scopes: [...t.scopes].sort(),
    status: statusOf(t),
    expires_at: iso(t.expiresAt),
    revoked_at: iso(t.revokedAt),
    last_used_at: iso(t.lastUsedAt),
    created_at: t.createdAt.toISOString(),
  };
}
