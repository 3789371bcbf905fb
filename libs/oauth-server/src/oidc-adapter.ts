import { isScope } from '@app/access-vocabulary';
import { errors, Provider, type Adapter, type AdapterPayload } from 'oidc-provider';
import { textRefusal, textRefusalIn } from '@app/common';
import { displayPrefix, hashTokenSecret, type TokensRepository } from '@app/identity';
import { OAuthRecordsRepository } from './oauth-records.repository.js';

/** A record a request marked used (an authorization code, a refresh token), and when. */
interface Consumption {
  model: string;
  idHash: string;
  consumedAt: Date;
}

/** What each request in progress has consumed, keyed by its `oidc-provider` context. */
const consumedBy = new WeakMap<object, Consumption[]>();

/**
 * Gives back what a failed request consumed. The library marks a code or refresh token used
 * before it has checked everything (the `resource` of the request, the scopes the resource
 * server grants, the access token it then stores); a request refused after that point would
 * otherwise leave the client holding a used token, and its next, correct, request would be taken
 * for a replay that revokes the whole grant. Only this request's own mark is removed.
 */
export async function restoreConsumed(
  ctx: object,
  records: Pick<OAuthRecordsRepository, 'unconsume'>,
): Promise<void> {
  const consumed = consumedBy.get(ctx) ?? [];
  consumedBy.delete(ctx);
  for (const c of consumed) await records.unconsume(c.model, c.idHash, c.consumedAt);
}

/** What the adapter needs besides storage: the client's display name for the token row. */
export interface AccessTokenContext {
  clientName(clientId: string): Promise<string>;
  defaultAudience: string;
  /** How long a self-registered client lives until a person authorizes it. */
  unusedClientTtlSeconds: number;
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
    // Whatever a request's parameters put in a record (an authorization request's state, a
    // pushed request's login_hint, …): `jsonb` cannot hold U+0000 or a lone surrogate, so such a
    // request is refused as invalid, never a failed INSERT.
    const refusal = textRefusalIn(payload, this.model);
    if (refusal !== undefined) throw new errors.InvalidRequest(refusal);
    // The library looks a proof's jti up, then saves it: two replicas could both find nothing.
    // Saving it is the check that holds.
    if (this.model === 'ReplayDetection') {
      if (
        !(await this.records.insertOnce(this.model, hashTokenSecret(id), { ...payload }, expiresIn))
      )
        throw new errors.InvalidGrant('DPoP proof JWT Replay detected');
      return;
    }
    if (this.model === 'AccessToken') await this.storeAccessToken(id, payload, expiresIn);
    // A registered client (the library gives it no expiry) expires unless a person authorizes it
    // (the grant below keeps it): registrations nobody uses do not pile up.
    const lifetime =
      this.model === 'Client' ? (expiresIn ?? this.tokens.unusedClientTtlSeconds) : expiresIn;
    await this.records.upsert(this.model, hashTokenSecret(id), { ...payload }, lifetime);
    if (this.model === 'Grant' && typeof payload.clientId === 'string')
      await this.records.keepClient(hashTokenSecret(payload.clientId));
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.records.find(this.model, hashTokenSecret(id));
  }

  // A uid or user code comes from a URL path: text Postgres cannot compare is no record's.
  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    if (textRefusal(uid) !== undefined) return undefined;
    return this.records.findBy(this.model, 'uid', uid);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    if (textRefusal(userCode) !== undefined) return undefined;
    return this.records.findBy(this.model, 'user_code', userCode);
  }

  /**
   * Marks a code or refresh token used, once. Two requests that found it unused at the same time
   * cannot both go on: the one whose mark is not the first is refused.
   */
  async consume(id: string): Promise<void> {
    const idHash = hashTokenSecret(id);
    const consumedAt = await this.records.consume(this.model, idHash);
    if (consumedAt === undefined) throw new errors.InvalidGrant(`${this.model} already used`);
    const ctx: unknown = Provider.ctx;
    if (typeof ctx !== 'object' || ctx === null) return;
    const consumed = consumedBy.get(ctx) ?? [];
    consumed.push({ model: this.model, idHash, consumedAt });
    consumedBy.set(ctx, consumed);
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
      // Set by the library when the token request came with a DPoP proof (RFC 9449 §5).
      dpopJkt: typeof payload.jkt === 'string' ? payload.jkt : null,
      scopes: (payload.scope ?? '').split(' ').filter(isScope),
      secretHash: hashTokenSecret(secret),
      tokenPrefix: displayPrefix(secret),
      expiresInSeconds: expiresIn ?? 3600,
    });
    if (!stored)
      throw new Error('The grant was revoked or its membership no longer exists; no token issued');
  }
}
