import { applyDecorators } from '@nestjs/common';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { isLoopbackHostname, MCP_PATH } from './server-address.js';

/** A whole number from `min` (and up to `max` when given), inclusive. */
function IntInRange(min: number, max?: number): PropertyDecorator {
  return applyDecorators(IsInt(), Min(min), ...(max === undefined ? [] : [Max(max)]));
}

/**
 * Days of a history kept (older partitions are dropped whole): 0 keeps everything; a century at
 * most.
 */
function RetentionDays(): PropertyDecorator {
  return IntInRange(0, 36_500);
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Every setting the service reads, typed and validated at boot. `process.env` is read only by
 * {@link loadConfig}; everything else injects this class.
 */
export class AppConfig {
  /**
   * Any value is accepted (`staging`, `qa`, …). Only `production` changes behaviour: it refuses
   * development-only settings (`OAUTH_CIMD_ALLOW_PRIVATE_HOSTS`).
   */
  @IsString()
  @MaxLength(64)
  nodeEnv = 'development';

  /** Interface to bind. Loopback by default; a loopback bind also turns on Host validation. */
  @IsString()
  @MinLength(1)
  host = '127.0.0.1';

  @IntInRange(0, 65535)
  port = 3000;

  /** Postgres connection string. Absent: an embedded Postgres (PGlite) under `dataDir`. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// or postgresql:// URL' })
  databaseUrl?: string;

  @IsString()
  @MinLength(1)
  dataDir = './.data';

  @IsIn(LOG_LEVELS)
  logLevel: LogLevel = 'info';

  /**
   * The one address of this server (scheme, host, port, optional path prefix): every URL it prints
   * or builds (OAuth metadata and issuer, 401 challenges, sign-in and invitation links, the start-up
   * banner) uses it. Unset: `http://HOST:PORT` (127.0.0.1 when bound to every interface). A
   * loopback-bound server redirects requests for another loopback name (`localhost` when this is
   * `127.0.0.1`) to it, so a browser session and its cookies live on one origin.
   */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, { message: 'must be an http(s) URL' })
  publicBaseUrl?: string;

  /** Browser origins allowed to call /mcp. Empty: no browser origin is allowed. */
  @IsArray()
  @Matches(/^https?:\/\/[^\s/]+$/, {
    each: true,
    message: 'each entry must be an origin like https://app.example.com',
  })
  mcpAllowedOrigins: string[] = [];

  /**
   * The server's master secret: comma-separated keys, the first signs, all verify (rotation).
   * Every secret the server derives comes from it (browser sessions' CSRF, the OAuth server's
   * cookies, the upstream OIDC state, invitation forms, MCP session ids, `requestState`); read it
   * through {@link serverSecretKeys}. Required with DATABASE_URL; the embedded default generates one
   * under `dataDir`. Formerly `CONFIRMATION_KEYS`, still read (see ENV_ALIASES).
   */
  @ValidateIf((c: AppConfig) => c.databaseUrl !== undefined || c.serverSecretKeys.length > 0)
  @IsArray()
  @ArrayMinSize(1, {
    message: 'is required when DATABASE_URL is set (comma-separated keys of 32+ characters)',
  })
  @ArrayMaxSize(8)
  @MinLength(32, { each: true, message: 'each key must be at least 32 characters' })
  @IsString({ each: true })
  serverSecretKeys: string[] = [];

  @IntInRange(10, 86_400)
  confirmationTtlSeconds = 600;

  /**
   * Days of MCP call history kept (`mcp_tool_calls`); older days are dropped a whole partition at
   * a time. 0 keeps everything.
   */
  @RetentionDays()
  historyRetentionDays = 90;

  /**
   * Days of audit trail kept (`audit_events`), a whole month at a time. 0 (the default) keeps it
   * all: an organisation's audit trail is a record; export it before lowering this.
   */
  @RetentionDays()
  auditRetentionDays = 0;

  /** Days of confirmations kept (`mcp_confirmations`), a whole month at a time. 0 keeps everything. */
  @RetentionDays()
  confirmationRetentionDays = 90;

  /**
   * The portal's own invitation page, e.g. `https://portal.example/invite/{token}`: invitation
   * e-mails link there (`{token}` is replaced by the secret). Absent: they link to this server's
   * page at `/v1/portal-invitations/{token}/accept`.
   */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'must be an http(s) URL' })
  @Matches(/\{token\}/, { message: 'must contain {token} where the invitation secret goes' })
  portalInvitationUrl?: string;

  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'must be an smtp:// or smtps:// URL' })
  smtpUrl?: string;

  @IsString()
  @MaxLength(200)
  mailFrom = 'Platform <no-reply@platform.local>';

  @IntInRange(100, 60_000)
  mailTimeoutMs = 5_000;

  /**
   * Redis for the rate-limit budgets (`redis://` or `rediss://`), shared by every replica. Absent:
   * Postgres with DATABASE_URL, process memory on the embedded default.
   */
  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL' })
  redisUrl?: string;

  /** Prefix of every key this service writes in Redis (several deployments may share one Redis). */
  @IsString()
  @Matches(/^[A-Za-z0-9:_.-]{1,64}$/, {
    message: 'must be 1–64 characters of letters, digits, ":", "_", "." or "-"',
  })
  redisKeyPrefix = 'platform-mcp';

  /**
   * How long a resolved bearer token (person, organisation, membership, scopes) is reused without
   * asking the database; changes invalidate it on every replica at once (LISTEN/NOTIFY). 0: never
   * cached.
   */
  @IntInRange(0, 60_000)
  principalCacheTtlMs = 5_000;

  @IntInRange(1)
  rateLimitPerTokenPerMinute = 600;

  @IntInRange(1)
  rateLimitPerIpPerMinute = 1_200;

  @IntInRange(0, 120_000)
  shutdownGraceMs = 10_000;

  /**
   * Longest a client may take to send one whole request, headers and body (a body dribbled a
   * byte at a time holds a connection and its parser); past it the answer is 408 REQUEST_TIMEOUT
   * and the connection closes. Not the time to answer: a response, a stream included, is not bound.
   */
  @IntInRange(500, 600_000)
  requestReceiveTimeoutMs = 30_000;

  @IntInRange(1, 100)
  dbPoolSize = 10;

  /**
   * The database waiting one request may do in total: pool checkout, every statement, locks. A
   * frozen or cut database is answered 503 SERVICE_UNAVAILABLE (tools: an isError result) after
   * this much, whatever the request would have run.
   */
  @IntInRange(100, 60_000)
  requestDeadlineMs = 5_000;

  /** Longest a statement may run (server `statement_timeout`; the client gives up 1 s later). */
  @IntInRange(100, 600_000)
  dbStatementTimeoutMs = 5_000;

  /** A transaction left idle this long is ended by the server. */
  @IntInRange(100, 600_000)
  dbIdleInTransactionTimeoutMs = 10_000;

  /** Longest wait for a pool connection (including opening one). */
  @IntInRange(100, 60_000)
  dbConnectTimeoutMs = 3_000;

  /** TCP keepalive on database connections: first probe after this much idle time. */
  @IntInRange(1_000, 600_000)
  dbKeepaliveMs = 5_000;

  /**
   * Seed the demo organisations (Acme, Globex) on start when they do not exist, and write their
   * tokens to `dataDir/demo-tokens.json`. Default: on for the embedded database, off otherwise.
   */
  @IsOptional()
  @IsIn([true, false])
  seedDemo?: boolean;

  /** How long a person stays signed in (consent page, admin console) after signing in. */
  @IntInRange(300, 30 * 86_400)
  sessionTtlSeconds = 8 * 3600;

  /** How long a one-time sign-in link stays valid. */
  @IntInRange(60, 86_400)
  signInLinkTtlSeconds = 900;

  /**
   * Sign-in mails one address receives at most per 15 minutes (shared by every replica); further
   * requests send nothing and are audited as refused.
   */
  @IntInRange(1, 100)
  signInMailsPerAddress = 3;

  /** Dynamic Client Registrations accepted from one client IP per hour (every replica together). */
  @IntInRange(1, 100_000)
  oauthRegistrationsPerIpPerHour = 20;

  /** Dynamic Client Registrations accepted per hour in total (every replica together). */
  @IntInRange(1, 1_000_000)
  oauthRegistrationsPerHour = 500;

  /**
   * A self-registered client that no person has authorized within this time is deleted (it can
   * register again). One that was authorized is kept.
   */
  @IntInRange(300, 30 * 86_400)
  oauthUnusedClientTtlSeconds = 86_400;

  /** Lifetime of an OAuth access token (`oat_…`). */
  @IntInRange(60, 86_400)
  oauthAccessTokenTtlSeconds = 3600;

  /** Lifetime of an OAuth refresh token (each use rotates it). */
  @IntInRange(300, 365 * 86_400)
  oauthRefreshTokenTtlSeconds = 30 * 86_400;

  /**
   * Development only: let Client ID Metadata Document URLs resolve to loopback, private and
   * link-local addresses. Refused with NODE_ENV=production.
   */
  @ValidateIf((c: AppConfig) => c.nodeEnv === 'production')
  @IsIn([false], { message: 'must be false with NODE_ENV=production' })
  oauthCimdAllowPrivateHosts = false;

  /**
   * Testing only: register the MCP conformance suite's fixture tools, prompts and resources
   * (`test_*`, `test://…`) next to ours, so `npm run test:conformance` can exercise every scenario.
   * Refused with NODE_ENV=production: they answer anyone with a valid token and do nothing useful.
   */
  @ValidateIf((c: AppConfig) => c.nodeEnv === 'production')
  @IsIn([false], {
    message:
      'must be false with NODE_ENV=production (the conformance fixtures are for testing only)',
  })
  mcpConformanceFixtures = false;

  /** Upstream OpenID Connect provider people sign in with (the company's IdP). Optional. */
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'must be an http(s) URL' })
  oidcIssuer?: string;

  @ValidateIf((c: AppConfig) => c.oidcIssuer !== undefined)
  @IsString({ message: 'is required when OIDC_ISSUER is set' })
  @MinLength(1)
  oidcClientId?: string;

  @IsOptional()
  @IsString()
  oidcClientSecret?: string;

  /** Trust X-Forwarded-* from a proxy in front (client IP for rate limits). */
  @IsIn([true, false])
  trustProxy = false;

  /**
   * Tracing (OpenTelemetry, OTLP over HTTP) is on when one of these names where to send spans
   * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or `OTEL_TRACES_EXPORTER`
   * names an exporter; the SDK itself reads these and every other `OTEL_*` variable (sampler,
   * protocol, headers, resource attributes). Off by default: the SDK is then never loaded.
   */
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'must be an http:// or https:// URL' })
  otlpEndpoint?: string;

  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'must be an http:// or https:// URL' })
  otlpTracesEndpoint?: string;

  @IsOptional()
  @IsIn(['otlp', 'console', 'none'])
  otelTracesExporter?: 'otlp' | 'console' | 'none';

  /** `OTEL_SDK_DISABLED=true` turns tracing off whatever else is set (the specification's switch). */
  @IsIn([true, false])
  otelSdkDisabled = false;

  /** The traces' `service.name`. */
  @IsString()
  @Matches(/^\S{1,128}$/, { message: 'must be 1–128 characters without spaces' })
  otelServiceName = 'platform-mcp';

  /**
   * Opt-in (the GenAI conventions' switch, `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`):
   * a `tools/call` span then carries the call's arguments and result as JSON
   * (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`). They are request data (names,
   * e-mail addresses, identifiers): off by default, and only for a trace backend that may hold them.
   */
  @IsIn([true, false])
  otelCaptureToolContent = false;

  /**
   * Where the admin console links a call's trace id: a URL with `{traceId}` in it, e.g.
   * `http://localhost:16686/trace/{traceId}` (Jaeger) or a Grafana Explore URL. Absent: the
   * console shows the id without a link.
   */
  @IsOptional()
  @Matches(/^https?:\/\/\S*\{traceId\}\S*$/, {
    message: 'must be an http:// or https:// URL containing {traceId}',
  })
  traceUrlTemplate?: string;

  /** Whether this process exports traces (see {@link otlpEndpoint}). */
  get tracing(): boolean {
    if (this.otelSdkDisabled || this.otelTracesExporter === 'none') return false;
    return (
      this.otelTracesExporter !== undefined ||
      this.otlpEndpoint !== undefined ||
      this.otlpTracesEndpoint !== undefined
    );
  }

  get embedded(): boolean {
    return this.databaseUrl === undefined;
  }

  get baseUrl(): string {
    const host = this.host === '0.0.0.0' || this.host === '::' ? '127.0.0.1' : this.host;
    const authority = host.includes(':') ? `[${host}]` : host;
    return (this.publicBaseUrl ?? `http://${authority}:${this.port}`).replace(/\/$/, '');
  }

  get mcpUrl(): string {
    return `${this.baseUrl}${MCP_PATH}`;
  }

  /** Listening on a loopback interface only: `Host` is validated on every route (DNS rebinding). */
  get loopbackBound(): boolean {
    return isLoopbackHostname(this.host);
  }
}
