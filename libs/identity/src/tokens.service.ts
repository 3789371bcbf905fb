import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppConfig } from '@app/config';
import { DomainError } from '@app/errors';
import { OAUTH_GRANTABLE_SCOPES, type Scope, type TokenKind } from '@app/access-vocabulary';
import type { ApiToken } from './identity.types.js';
import type { Principal } from './principal.js';
import {
  displayPrefix,
  hashTokenSecret,
  looksLikeTokenSecret,
  newTokenSecret,
} from './token-secret.js';
import { PrincipalCache } from './principal-cache.js';
import { TokensRepository } from './tokens.repository.js';

export interface IssueTokenInput {
  organizationId: string;
  userId: string;
  kind: TokenKind;
  name: string;
  clientName?: string | null;
  scopes: readonly Scope[];
  expiresAt?: Date | null;
  /**
   * The only resource (RFC 8707) that accepts the token; absent: every route of this service for a
   * personal token, the MCP URL for an OAuth token (an OAuth token is always bound to a resource).
   */
  audience?: string | null;
}

export interface IssuedToken {
  /** The stored token (its secret hash is never handed out). */
  token: ApiToken;
  /** The secret, returned exactly once. */
  secret: string;
}

@Injectable()
export class TokensService {
  private readonly logger = new Logger(TokensService.name);

  constructor(
    private readonly repo: TokensRepository,
    private readonly cache: PrincipalCache,
    private readonly config: AppConfig,
  ) {}

  /**
   * Creates a token. OAuth tokens are read-only: asking one for a write scope or `org:admin` is
   * refused (and the database refuses it too). An OAuth token is what the authorization server
   * issues: bound to the MCP URL (its audience) unless another resource is named, so the REST API
   * refuses it exactly as it refuses a token from the OAuth flow (the database requires the
   * audience of every OAuth token).
   * `tx`: issue inside the caller's transaction (e.g. together with its audit event).
   */
  async issue(input: IssueTokenInput, tx?: EntityManager): Promise<IssuedToken> {
    const scopes = [...new Set(input.scopes)].sort();
    if (input.kind === 'oauth') {
      const beyond = scopes.filter((s) => !OAUTH_GRANTABLE_SCOPES.includes(s));
      if (beyond.length > 0) {
        throw DomainError.validation([
          { field: 'scopes', message: `OAuth tokens are read-only; remove ${beyond.join(', ')}` },
        ]);
      }
    }
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
      throw DomainError.validation([{ field: 'expires_at', message: 'must be in the future' }]);
    }
    const secret = newTokenSecret(input.kind);
    const token = await this.repo.insert(
      {
        organizationId: input.organizationId,
        userId: input.userId,
        kind: input.kind,
        name: input.name,
        clientName: input.clientName ?? null,
        tokenPrefix: displayPrefix(secret),
        secretHash: hashTokenSecret(secret),
        scopes,
        expiresAt: input.expiresAt ?? null,
        audience: input.audience ?? (input.kind === 'oauth' ? this.config.mcpUrl : null),
      },
      tx,
    );
    return { token, secret };
  }

  /**
   * Resolves a bearer secret to its principal with one indexed query, or none while the principal
   * cache holds it. Unknown, revoked and expired tokens are all `INVALID_TOKEN` (the caller learns
   * nothing about which); expiry is checked on every use, cached or not.
   */
  async authenticate(secret: string): Promise<Principal> {
    if (!looksLikeTokenSecret(secret)) throw invalidToken();
    const hash = hashTokenSecret(secret);
    const row = await this.cache.resolve(hash, () => this.repo.findPrincipalBySecretHash(hash));
    if (row === undefined || row.revoked_at !== null) throw invalidToken();
    if (row.expires_at !== null && row.expires_at.getTime() <= Date.now()) throw invalidToken();
    if (row.last_used_at === null || Date.now() - row.last_used_at.getTime() > 60_000) {
      // A cached row remembers the write, so its next uses within the minute do not repeat it.
      row.last_used_at = new Date();
      this.repo
        .touch(row.token_id)
        .catch((err: unknown) => this.logger.warn({ err }, 'last_used_at update failed'));
    }
    return {
      tokenId: row.token_id,
      tokenKind: row.kind,
      tokenName: row.token_name,
      scopes: row.scopes,
      expiresAt: row.expires_at,
      clientName: row.client_name,
      audience: row.audience,
      dpopJkt: row.dpop_jkt,
      organizationId: row.organization_id,
      organizationSlug: row.organization_slug,
      userId: row.user_id,
      userEmail: row.user_email,
      userName: row.user_name,
      membership:
        row.membership_id === null
          ? null
          : {
              id: row.membership_id,
              status: row.membership_status ?? 'inactive',
              role: row.membership_role ?? 'custom',
              permissions: row.permissions ?? [],
            },
    };
  }
}

function invalidToken(): DomainError {
  return new DomainError('INVALID_TOKEN', 'The bearer token is invalid, expired or revoked');
}
