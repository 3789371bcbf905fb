import { OAUTH_GRANTABLE_SCOPES } from '@app/access-vocabulary';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import {
  errors,
  Provider,
  type ClientMetadata,
  type Configuration,
  type JWK,
  type KoaContextWithOIDC,
  type ResourceServer,
} from 'oidc-provider';
import { AppConfig, serverSecretKeys } from '@app/config';
import { toEnvelope } from '@app/errors';
import {
  DPOP_SIGNING_ALGORITHMS,
  MembershipsRepository,
  newTokenSecret,
  TokensRepository,
} from '@app/identity';
import { RateLimitService } from '@app/rate-limit';
import { hmac } from './browser-secrets.js';
import { clientDocumentUrlRefusal } from './client-document-url.js';
import { clientMetadataRefusal, isLoopbackHttp } from './client-metadata-rules.js';
import { guardOAuthServer, renderSignOut } from './oauth-server.middleware.js';
import { clientDisplayName } from './client-display-name.js';
import { PostgresOidcAdapter, restoreConsumed } from './oidc-adapter.js';
import { OAuthRecordsRepository } from './oauth-records.repository.js';
import { messagePage } from './pages.js';
import { OIDC_SCOPES, writeScopeRefusal, writeScopesIn } from './scope-words.js';

/** Where `oidc-provider` is mounted; its endpoints are `/oauth/authorize`, `/oauth/token`, … */
export const OAUTH_MOUNT = '/oauth';
/** The consent page of an authorization in progress (ours, not the library's). */
export const CONSENT_PATH = '/consent';
/** Largest Client ID Metadata Document fetched (bytes). */
const CIMD_MAX_BYTES = 5 * 1024;

/**
 * The OAuth 2.1 authorization server: `oidc-provider` (certified, panva) configured for MCP
 * clients. Authorization code + PKCE S256 only; Client ID Metadata Documents (SSRF-protected
 * fetch) and Dynamic Client Registration; resource indicators bound to the MCP URL; rotating
 * refresh tokens; revocation. Access tokens are our opaque `oat_` secrets stored as `api_tokens`
 * rows (see {@link PostgresOidcAdapter}). Storage in Postgres, so any replica serves any step.
 */
@Injectable()
export class OAuthProviderService implements OnModuleInit {
  private readonly logger = new Logger(OAuthProviderService.name);
  private built?: Provider;
  private keys?: unknown[];

  constructor(
    private readonly config: AppConfig,
    private readonly records: OAuthRecordsRepository,
    private readonly tokens: TokensRepository,
    private readonly memberships: MembershipsRepository,
    private readonly limits: RateLimitService,
  ) {}

  async onModuleInit(): Promise<void> {
    this.keys = await this.records.signingKeys(() => Promise.resolve(newSigningKey()));
  }

  /**
   * The provider, built on first use: its issuer is the public base URL, final only once the
   * server listens (PORT=0 in tests).
   */
  get provider(): Provider {
    if (this.keys === undefined) throw new Error('The OAuth provider is not initialised yet');
    this.built ??= this.build(this.keys);
    return this.built;
  }

  /** The authorization server's issuer identifier (the PRM's `authorization_servers` entry). */
  get issuer(): string {
    return this.config.baseUrl;
  }

  /**
   * Dynamic Client Registration quotas, before the library reads the request: per client IP and
   * in total, per hour, shared by every replica. Past either, 429 with `Retry-After`; a client
   * that cannot register can still identify itself with a Client ID Metadata Document.
   */
  private registrationQuota(): KoaMiddleware {
    return async (ctx, next) => {
      if (ctx.method !== 'POST' || ctx.path !== '/register') {
        await next();
        return;
      }
      const perIp = await this.limits.consumeQuota('registration_ip', ctx.ip);
      const decision = perIp.allowed
        ? await this.limits.consumeQuota('registration_total', 'all')
        : perIp;
      if (decision.allowed) {
        await next();
        return;
      }
      ctx.status = 429;
      ctx.set('retry-after', String(decision.retryAfterSeconds));
      ctx.set('cache-control', 'no-store');
      ctx.body = {
        error: 'temporarily_unavailable',
        error_description: `Too many client registrations ${perIp.allowed ? 'on this server' : 'from this address'}; try again in ${decision.retryAfterSeconds} s, or identify the client with a Client ID Metadata Document (no registration needed)`,
      };
    };
  }

  private build(keys: readonly unknown[]): Provider {
    const config = this.config;
    const resource = config.mcpUrl;
    const { records, tokens, memberships } = this;
    let provider: Provider | undefined;
    const clientName = async (clientId: string): Promise<string> => {
      const client = await provider?.Client.find(clientId);
      return clientDisplayName(client?.clientName) ?? clientId;
    };

    const configuration: Configuration = {
      adapter: (model: string) =>
        new PostgresOidcAdapter(model, records, tokens, {
          clientName,
          defaultAudience: resource,
          unusedClientTtlSeconds: config.oauthUnusedClientTtlSeconds,
        }),
      clients: [],
      async findAccount(_ctx, sub) {
        const member = await memberships.findPersonOfMembership(sub);
        if (member === undefined) return undefined;
        return { accountId: sub, claims: () => ({ sub }) };
      },
      // No `email`/`profile` scopes: the consent page names what a client gets (the read scopes),
      // and a person's e-mail or name in an ID token would be a disclosure it does not show.
      claims: { openid: ['sub'] },
      // Recognised scopes (metadata, client registration); the read scopes are granted for the
      // MCP resource only (getResourceServerInfo).
      scopes: [...OIDC_SCOPES, ...OAUTH_GRANTABLE_SCOPES],
      responseTypes: ['code'],
      pkce: { required: () => true },
      clientDefaults: {
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        id_token_signed_response_alg: 'ES256',
      },
      // Runs once per client (registration, metadata document, stored registration), before the
      // library's own checks. RFC 8252 §7.3: a client whose redirect URIs are all http loopback is
      // a native app, whose redirect may use any port (oidc-provider matches loopback ports
      // loosely for native apps). Then this server's rules (client-metadata-rules.ts); a client
      // whose client_id is an https URL came from its metadata document (DCR ids are random).
      extraClientMetadata: {
        properties: ['loopback_any_port'],
        validator(_ctx, key, _value, metadata) {
          if (key !== 'loopback_any_port') return;
          const uris = metadata.redirect_uris;
          if (
            metadata.application_type === 'web' &&
            Array.isArray(uris) &&
            uris.length > 0 &&
            uris.every(isLoopbackHttp)
          )
            metadata.application_type = 'native';
          delete metadata.loopback_any_port;
          const verified = URL.parse(metadata.client_id)?.protocol === 'https:';
          const refusal = clientMetadataRefusal(metadata, verified);
          if (refusal !== undefined) throw new errors.InvalidClientMetadata(refusal);
          // Then, for every registration and every Client ID Metadata Document, the name is kept
          // as it will be shown (the one normaliser of client strings). After the refusals: a
          // name the rules refuse (U+0000, a lone surrogate, over the cap) is refused, not
          // silently repaired into one they would accept.
          if (metadata.client_name !== undefined)
            metadata.client_name = clientDisplayName(metadata.client_name);
        },
      },
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: true, initialAccessToken: false },
        revocation: { enabled: true },
        userinfo: { enabled: false },
        // Pushed authorization requests (RFC 9126) are off: MCP clients do not use them, and they
        // would be one more endpoint that stores a request's parameters before anyone looked.
        pushedAuthorizationRequests: { enabled: false },
        // Our pages: the person confirms, and only a verified client may ask (see
        // guardOAuthServer, which also renders the library's no-account case the same way).
        rpInitiatedLogout: {
          enabled: true,
          logoutSource: (ctx) => {
            renderSignOut(ctx);
            return Promise.resolve();
          },
          postLogoutSuccessSource: (ctx) => {
            ctx.type = 'html';
            ctx.body = messagePage('Signed out', 'You are signed out of the authorization server.');
            return Promise.resolve();
          },
        },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => resource,
          useGrantedResource: () => true,
          getResourceServerInfo(ctx, indicator): ResourceServer {
            const write = writeScopesIn(
              typeof ctx.oidc.params?.scope === 'string' ? ctx.oidc.params.scope : undefined,
            );
            if (write.length > 0)
              throw new errors.InvalidScope(writeScopeRefusal(write), write.join(' '));
            if (indicator !== resource)
              throw new errors.InvalidTarget(`This server issues tokens for ${resource} only`);
            return {
              scope: OAUTH_GRANTABLE_SCOPES.join(' '),
              audience: resource,
              accessTokenTTL: config.oauthAccessTokenTtlSeconds,
              accessTokenFormat: 'opaque',
            };
          },
        },
        clientIdMetadataDocument: {
          enabled: true,
          ack: 'draft-02',
          // Cache-Control max-age (or Expires) decides, within 1 minute to 1 day; the library
          // keeps fewer than 200 documents per replica (a two-generation LRU of 100).
          cacheDuration: { min: 60, max: 24 * 3600 },
          // Before any connection: https with a path, no literal special-use address, no
          // localhost name (unless the development flag). Names resolving to such an address
          // are refused at connect time by the library's guarded fetch; redirects are not
          // followed (anything but 200 is refused); 2.5 s and CIMD_MAX_BYTES bound each fetch.
          allowFetch: (_ctx, clientId) => {
            const refusal = clientDocumentUrlRefusal(clientId, config.oauthCimdAllowPrivateHosts);
            if (refusal !== undefined)
              this.logger.warn(
                `Client ID Metadata Document ${clientId} not fetched: it ${refusal}`,
              );
            return refusal === undefined;
          },
        },
      },
      fetchResponseBodyLimits: { 'client_id metadata document': CIMD_MAX_BYTES },
      // Development only (refused in production by the config): CIMD on this machine or a private
      // network. The library's own fetch otherwise refuses every non-public address.
      ...(config.oauthCimdAllowPrivateHosts
        ? {
            fetch: (url: string | URL | Request, init?: RequestInit) => {
              const { dispatcher: _publicOnly, ...rest } = (init ?? {}) as RequestInit & {
                dispatcher?: unknown;
              };
              return fetch(url, rest);
            },
          }
        : {}),
      ttl: {
        AccessToken: config.oauthAccessTokenTtlSeconds,
        AuthorizationCode: 60,
        RefreshToken: config.oauthRefreshTokenTtlSeconds,
        Grant: config.oauthRefreshTokenTtlSeconds,
        Interaction: 600,
        Session: config.sessionTtlSeconds,
        IdToken: 3600,
      },
      rotateRefreshToken: true,
      issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      // Every authorization asks the person (the organisation is chosen each time).
      loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
        const grantId = ctx.oidc.result?.consent?.grantId;
        return grantId === undefined ? undefined : ctx.oidc.provider.Grant.find(grantId);
      },
      interactions: { url: (_ctx, interaction) => `${CONSENT_PATH}/${interaction.uid}` },
      routes: {
        authorization: '/authorize',
        token: '/token',
        registration: '/register',
        revocation: '/revoke',
        jwks: '/jwks',
        end_session: '/session/end',
      },
      cookies: {
        keys: serverSecretKeys(config).map((k) => hmac(k, 'oidc-provider cookies v1')),
      },
      jwks: { keys: keys.filter(isJwk) },
      enabledJWA: {
        idTokenSigningAlgValues: ['ES256'],
        // The algorithms every route that takes a bound token verifies (one list).
        dPoPSigningAlgValues: [...DPOP_SIGNING_ALGORITHMS],
      },
      discovery: {
        service_documentation: `${config.baseUrl}/v1/openapi.json`,
      },
      renderError: (ctx, out) => {
        ctx.type = 'html';
        ctx.body = messagePage(
          'Authorization failed',
          typeof out.error_description === 'string' ? out.error_description : out.error,
        );
      },
    };

    provider = new Provider(config.baseUrl, configuration);
    provider.proxy = config.trustProxy;
    // Every URL the provider builds (its metadata's endpoints, redirects, form actions) starts
    // with the public base URL, as its issuer does, never with the Host a request arrived with.
    const base = new URL(config.baseUrl);
    // (The library resolves its paths against the request's `href`; the logout page names `host`.)
    provider.use(async (ctx, next) => {
      const { originalUrl } = ctx;
      Object.defineProperty(ctx.request, 'href', { value: `${base.origin}${originalUrl}` });
      Object.defineProperty(ctx.request, 'host', { value: base.host });
      await next();
      // A path under /oauth the library has no route for: our 404, not Koa's plain-text one.
      if (ctx.status === 404 && ctx.body == null) {
        ctx.status = 404;
        ctx.type = 'application/json';
        ctx.body = toEnvelope('NOT_FOUND', 'Route not found');
      }
    });
    // What the library's web framework would print on stderr as plain text (a request whose body
    // was cut off, say) is one JSON log line like everything else.
    // (Koa's 'error' event, which the library's typings do not list.)
    EventEmitter.prototype.on.call(provider, 'error', (err: unknown) => {
      // A client error the library answered itself (`expose`: a 4xx such as a cut-off body).
      if (typeof err === 'object' && err !== null && 'expose' in err && err.expose === true) return;
      this.logger.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'OAuth server: a request failed before it could be answered',
      );
    });
    provider.use(this.registrationQuota());
    // Access tokens are our opaque `oat_` secrets, so /mcp authenticates them like any token.
    // The library's own generator still runs first (it settles the token's format).
    const prototype: object = provider.AccessToken.prototype;
    const libraryGenerator: unknown = Reflect.get(prototype, 'generateTokenId');
    if (typeof libraryGenerator !== 'function')
      throw new Error('oidc-provider changed: AccessToken.generateTokenId is gone');
    Reflect.set(prototype, 'generateTokenId', function generateOatSecret(this: object): string {
      const libraryId: unknown = Reflect.apply(libraryGenerator, this, []);
      if ('format' in this && this.format === 'opaque') return newTokenSecret('oauth');
      if (typeof libraryId !== 'string') throw new Error('oidc-provider: token id is not a string');
      return libraryId;
    });
    // A request the token endpoint refuses leaves every code and refresh token it was given
    // usable (restoreConsumed says why).
    provider.use(async (ctx, next) => {
      try {
        await next();
      } finally {
        if (ctx.status >= 400) await restoreConsumed(ctx, records);
      }
    });
    guardOAuthServer(provider);
    provider.on('server_error', (_ctx, err) => this.logger.error({ err }, 'OAuth server error'));
    return provider;
  }
}

type KoaMiddleware = Parameters<Provider['use']>[0];

function isJwk(value: unknown): value is JWK {
  return typeof value === 'object' && value !== null && 'kty' in value;
}

/** A P-256 signing key (ID tokens, ES256; cheap to make), as a private JWK. */
function newSigningKey(): Record<string, unknown> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'ES256', use: 'sig' };
}

export type { ClientMetadata };
