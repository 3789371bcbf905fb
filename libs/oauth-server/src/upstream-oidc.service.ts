import { Injectable, Logger } from '@nestjs/common';
import * as oidc from 'openid-client';
import { AppConfig, isLoopbackHostname, serverSecretKeys } from '@app/config';
import { constantTimeEqual, hmac, safeReturnPath } from './browser-secrets.js';
import { IdentityRepository } from '@app/identity';

const STATE_TTL_MS = 10 * 60_000;

/** What the browser keeps (signed) between leaving for the IdP and coming back. */
interface PendingUpstreamSignIn {
  state: string;
  nonce: string;
  verifier: string;
  returnTo: string;
  expiresAt: number;
}

export type UpstreamSignInResult =
  { ok: true; userId: string; returnTo: string } | { ok: false; message: string };

/**
 * Sign-in through the company's OpenID Connect provider (`OIDC_ISSUER`), with `openid-client`:
 * authorization code + PKCE, state and nonce checked, the person matched by a *verified* e-mail to
 * a user with an active membership. The pending state travels in a signed, short-lived cookie.
 */
@Injectable()
export class UpstreamOidcService {
  private readonly logger = new Logger(UpstreamOidcService.name);
  private discovered?: Promise<oidc.Configuration>;
  private readonly stateKey: string;

  constructor(
    private readonly config: AppConfig,
    private readonly identity: IdentityRepository,
  ) {
    this.stateKey = hmac(serverSecretKeys(config)[0], 'upstream-oidc state v1');
  }

  get enabled(): boolean {
    return this.config.oidcIssuer !== undefined;
  }

  get redirectUri(): string {
    return `${this.config.baseUrl}/signin/oidc/callback`;
  }

  /** The IdP URL to send the browser to, and the signed value of the cookie to set meanwhile. */
  async begin(returnTo: string): Promise<{ url: string; pending: string }> {
    const configuration = await this.configuration();
    const pending: PendingUpstreamSignIn = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
      returnTo: safeReturnPath(returnTo),
      expiresAt: Date.now() + STATE_TTL_MS,
    };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      scope: 'openid email profile',
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, pending: this.seal(pending) };
  }

  /** Completes the code flow for the callback URL the browser came back on. */
  async complete(callbackUrl: URL, sealed: string | undefined): Promise<UpstreamSignInResult> {
    const pending = sealed === undefined ? undefined : this.unseal(sealed);
    if (pending === undefined)
      return { ok: false, message: 'This sign-in attempt expired or was started elsewhere.' };
    let claims: oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(await this.configuration(), callbackUrl, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (err) {
      this.logger.warn({ err }, 'Upstream OpenID Connect sign-in failed');
      return { ok: false, message: 'Your identity provider did not confirm the sign-in.' };
    }
    const email = claims?.email;
    if (typeof email !== 'string' || claims?.email_verified !== true)
      return {
        ok: false,
        message: 'Your identity provider did not give a verified e-mail address.',
      };
    const person = await this.identity.findPersonByEmail(email);
    if (person === undefined || !person.memberships.some((m) => m.status === 'active'))
      return {
        ok: false,
        message: 'No active member of any organisation has this e-mail address.',
      };
    return { ok: true, userId: person.userId, returnTo: pending.returnTo };
  }

  private configuration(): Promise<oidc.Configuration> {
    const { oidcIssuer: issuer, oidcClientId: clientId } = this.config;
    if (issuer === undefined) return Promise.reject(new Error('OIDC_ISSUER is not configured'));
    // The configuration requires OIDC_CLIENT_ID with OIDC_ISSUER; never an empty client id.
    if (clientId === undefined)
      return Promise.reject(new Error('OIDC_CLIENT_ID is not configured'));
    this.discovered ??= (async () => {
      const url = new URL(issuer);
      // Plain HTTP only for an IdP on this machine (development and tests).
      const insecure = url.protocol === 'http:' && isLoopbackHostname(url.hostname);
      return oidc.discovery(
        url,
        clientId,
        undefined,
        this.config.oidcClientSecret === undefined
          ? oidc.None()
          : oidc.ClientSecretPost(this.config.oidcClientSecret),
        insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
      );
    })();
    // A failed discovery is retried by the next sign-in instead of being cached.
    this.discovered.catch(() => (this.discovered = undefined));
    return this.discovered;
  }

  private seal(pending: PendingUpstreamSignIn): string {
    const body = Buffer.from(JSON.stringify(pending), 'utf8').toString('base64url');
    return `${body}.${hmac(this.stateKey, body)}`;
  }

  private unseal(sealed: string): PendingUpstreamSignIn | undefined {
    const [body, mac] = sealed.split('.');
    if (
      body === undefined ||
      mac === undefined ||
      !constantTimeEqual(mac, hmac(this.stateKey, body))
    )
      return undefined;
    try {
      const value: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      return isPending(value) && value.expiresAt > Date.now() ? value : undefined;
    } catch {
      return undefined;
    }
  }
}

function isPending(value: unknown): value is PendingUpstreamSignIn {
  if (typeof value !== 'object' || value === null) return false;
  const v: Record<string, unknown> = { ...value };
  return (
    typeof v.state === 'string' &&
    typeof v.nonce === 'string' &&
    typeof v.verifier === 'string' &&
    typeof v.returnTo === 'string' &&
    typeof v.expiresAt === 'number'
  );
}
