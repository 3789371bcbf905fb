import type { Adapter, AdapterPayload } from 'oidc-provider';
import { displayPrefix, hashTokenSecret, type TokensRepository } from '@app/identity';
import { isScope } from './scope-words.js';
import { OAuthRecordsRepository } from './oauth-records.repository.js';

/** What the adapter needs besides storage: the client's display name for the token row. */
export interface AccessTokenContext {
  clientName(clientId: string): Promise<string>;
  defaultAudience: string;
}

/**
 * `oidc-provider`'s storage, in Postgres through our repository. Every id is stored as its
 * SHA-256 (codes, refresh tokens and sessions are bearer secrets). Access tokens are also the
 * `api_tokens` row of their grant: that row is what `/mcp` authenticates, so an OAuth access token
 * is checked exactly like a personal one (scopes, membership, revocation, audience).
 */
export class PostgresOidcAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly records: OAuthRecordsRepository,
    private readonly accessTokens: TokensRepository,
    private readonly tokens: AccessTokenContext,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    if (this.model === 'AccessToken') await this.storeAccessToken(id, payload, expiresIn);
    await this.records.upsert(this.model, hashTokenSecret(id), { ...payload }, expiresIn);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.records.find(this.model, hashTokenSecret(id));
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.records.findBy(this.model, 'uid', uid);
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.records.findBy(this.model, 'user_code', userCode);
  }

  consume(id: string): Promise<void> {
    return this.records.consume(this.model, hashTokenSecret(id));
  }

  async destroy(id: string): Promise<void> {
    if (this.model === 'AccessToken')
      await this.accessTokens.expireOAuthAccessToken(hashTokenSecret(id));
    await this.records.destroy(this.model, hashTokenSecret(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    // The trigger on api_tokens deletes every record of the grant once its row is revoked.
    if (this.model === 'AccessToken') await this.accessTokens.revokeOAuthGrant(grantId);
    await this.records.destroyGrant(this.model, grantId);
  }

  private async storeAccessToken(
    secret: string,
    payload: AdapterPayload,
    expiresIn: number | undefined,
  ): Promise<void> {
    const { accountId, grantId, clientId } = payload;
    if (accountId === undefined || grantId === undefined || clientId === undefined)
      throw new Error('An access token without account, grant or client cannot be stored');
    const audience = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
    const stored = await this.accessTokens.upsertOAuthAccessToken({
      membershipId: accountId,
      grantId,
      clientId,
      clientName: await this.tokens.clientName(clientId),
      audience: audience ?? this.tokens.defaultAudience,
      scopes: (payload.scope ?? '').split(' ').filter(isScope),
      secretHash: hashTokenSecret(secret),
      tokenPrefix: displayPrefix(secret),
      expiresInSeconds: expiresIn ?? 3600,
    });
    if (!stored)
      throw new Error('The grant was revoked or its membership no longer exists; no token issued');
  }
}
