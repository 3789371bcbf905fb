import { unreachable } from '@app/common';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { AppConfig } from './app.config.js';

type Kind = 'string' | 'int' | 'list' | 'bool';

/** Environment variable → config field. The table is the documentation of what is read. */
export const ENV_KEYS: ReadonlyArray<readonly [env: string, field: keyof AppConfig, kind: Kind]> = [
  ['NODE_ENV', 'nodeEnv', 'string'],
  ['HOST', 'host', 'string'],
  ['PORT', 'port', 'int'],
  ['DATABASE_URL', 'databaseUrl', 'string'],
  ['DATA_DIR', 'dataDir', 'string'],
  ['LOG_LEVEL', 'logLevel', 'string'],
  ['PUBLIC_BASE_URL', 'publicBaseUrl', 'string'],
  ['MCP_ALLOWED_ORIGINS', 'mcpAllowedOrigins', 'list'],
  ['SERVER_SECRET_KEYS', 'serverSecretKeys', 'list'],
  ['CONFIRMATION_TTL_SECONDS', 'confirmationTtlSeconds', 'int'],
  ['HISTORY_RETENTION_DAYS', 'historyRetentionDays', 'int'],
  ['AUDIT_RETENTION_DAYS', 'auditRetentionDays', 'int'],
  ['CONFIRMATION_RETENTION_DAYS', 'confirmationRetentionDays', 'int'],
  ['SMTP_URL', 'smtpUrl', 'string'],
  ['PORTAL_INVITATION_URL', 'portalInvitationUrl', 'string'],
  ['MAIL_FROM', 'mailFrom', 'string'],
  ['MAIL_TIMEOUT_MS', 'mailTimeoutMs', 'int'],
  ['REDIS_URL', 'redisUrl', 'string'],
  ['REDIS_KEY_PREFIX', 'redisKeyPrefix', 'string'],
  ['PRINCIPAL_CACHE_TTL_MS', 'principalCacheTtlMs', 'int'],
  ['RATE_LIMIT_PER_TOKEN_PER_MINUTE', 'rateLimitPerTokenPerMinute', 'int'],
  ['RATE_LIMIT_PER_IP_PER_MINUTE', 'rateLimitPerIpPerMinute', 'int'],
  ['SHUTDOWN_GRACE_MS', 'shutdownGraceMs', 'int'],
  ['REQUEST_RECEIVE_TIMEOUT_MS', 'requestReceiveTimeoutMs', 'int'],
  ['DB_POOL_SIZE', 'dbPoolSize', 'int'],
  ['REQUEST_DEADLINE_MS', 'requestDeadlineMs', 'int'],
  ['DB_STATEMENT_TIMEOUT_MS', 'dbStatementTimeoutMs', 'int'],
  ['DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', 'dbIdleInTransactionTimeoutMs', 'int'],
  ['DB_CONNECT_TIMEOUT_MS', 'dbConnectTimeoutMs', 'int'],
  ['DB_KEEPALIVE_MS', 'dbKeepaliveMs', 'int'],
  ['TRUST_PROXY', 'trustProxy', 'bool'],
  ['SEED_DEMO', 'seedDemo', 'bool'],
  ['SESSION_TTL_SECONDS', 'sessionTtlSeconds', 'int'],
  ['SIGN_IN_LINK_TTL_SECONDS', 'signInLinkTtlSeconds', 'int'],
  ['SIGN_IN_MAILS_PER_ADDRESS', 'signInMailsPerAddress', 'int'],
  ['OAUTH_REGISTRATIONS_PER_IP_PER_HOUR', 'oauthRegistrationsPerIpPerHour', 'int'],
  ['OAUTH_REGISTRATIONS_PER_HOUR', 'oauthRegistrationsPerHour', 'int'],
  ['OAUTH_UNUSED_CLIENT_TTL_SECONDS', 'oauthUnusedClientTtlSeconds', 'int'],
  ['OAUTH_ACCESS_TOKEN_TTL_SECONDS', 'oauthAccessTokenTtlSeconds', 'int'],
  ['OAUTH_REFRESH_TOKEN_TTL_SECONDS', 'oauthRefreshTokenTtlSeconds', 'int'],
  ['OAUTH_CIMD_ALLOW_PRIVATE_HOSTS', 'oauthCimdAllowPrivateHosts', 'bool'],
  ['MCP_CONFORMANCE_FIXTURES', 'mcpConformanceFixtures', 'bool'],
  ['OIDC_ISSUER', 'oidcIssuer', 'string'],
  ['OIDC_CLIENT_ID', 'oidcClientId', 'string'],
  ['OIDC_CLIENT_SECRET', 'oidcClientSecret', 'string'],
  ['OTEL_EXPORTER_OTLP_ENDPOINT', 'otlpEndpoint', 'string'],
  ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'otlpTracesEndpoint', 'string'],
  ['OTEL_TRACES_EXPORTER', 'otelTracesExporter', 'string'],
  ['OTEL_SDK_DISABLED', 'otelSdkDisabled', 'bool'],
  ['OTEL_SERVICE_NAME', 'otelServiceName', 'string'],
  ['OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', 'otelCaptureToolContent', 'bool'],
  ['TRACE_URL_TEMPLATE', 'traceUrlTemplate', 'string'],
];

/**
 * Former names still read, each for the variable that replaced it: used when the new name is
 * unset; both set to different values is a configuration error (one of them would be ignored).
 */
export const ENV_ALIASES: ReadonlyArray<readonly [former: string, current: string]> = [
  ['CONFIRMATION_KEYS', 'SERVER_SECRET_KEYS'],
];

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function convert(env: string, raw: string, kind: Kind, problems: string[]): unknown {
  switch (kind) {
    case 'string':
      return raw;
    case 'int': {
      if (!/^-?\d+$/.test(raw.trim())) {
        problems.push(`${env}: must be an integer (got "${raw}")`);
        return undefined;
      }
      return Number.parseInt(raw, 10);
    }
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0);
    case 'bool': {
      const v = raw.trim().toLowerCase();
      if (['1', 'true', 'yes'].includes(v)) return true;
      if (['0', 'false', 'no', ''].includes(v)) return false;
      problems.push(`${env}: must be true or false (got "${raw}")`);
      return undefined;
    }
    default:
      return unreachable(kind);
  }
}

/** Exhaustiveness guard for switches over closed unions. */
function flatten(errors: ValidationError[], fieldToEnv: Map<string, string>): string[] {
  return errors.flatMap((e) => {
    const key = fieldToEnv.get(e.property) ?? e.property;
    const own = Object.values(e.constraints ?? {}).map(
      (m) => `${key}: ${m.replace(e.property, key)}`,
    );
    return [...own, ...flatten(e.children ?? [], fieldToEnv)];
  });
}

/**
 * Reads the environment into a validated {@link AppConfig}. Throws a {@link ConfigError} naming
 * every bad key at once (never just the first). `overrides` lets tests set fields directly.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<AppConfig> = {},
): AppConfig {
  return load(env, overrides);
}

/**
 * The settings the migration command needs, and only those: where the database is, and the MCP
 * URL (the audience a migration gives OAuth tokens that lack one) where it is known: with
 * `PUBLIC_BASE_URL`, or for the embedded database (served at `HOST`:`PORT`).
 */
export type DatabaseConfig = Pick<AppConfig, 'databaseUrl' | 'dataDir'> & { mcpUrl?: string };
const DATABASE_KEYS: ReadonlySet<string> = new Set([
  'DATABASE_URL',
  'DATA_DIR',
  'HOST',
  'PORT',
  'PUBLIC_BASE_URL',
]);

/**
 * `DATABASE_URL`, `DATA_DIR` and the server's address, validated like {@link loadConfig} does;
 * every other variable is ignored, so migrations run with only the database URL (no server
 * secret, no mail settings).
 */
export function loadDatabaseConfig(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  const config = load(env, {}, DATABASE_KEYS);
  const known = config.publicBaseUrl !== undefined || config.databaseUrl === undefined;
  return {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    ...(known ? { mcpUrl: config.mcpUrl } : {}),
  };
}

function load(
  env: NodeJS.ProcessEnv,
  overrides: Partial<AppConfig>,
  only?: ReadonlySet<string>,
): AppConfig {
  const problems: string[] = [];
  const plain: Record<string, unknown> = {};
  const keys = only === undefined ? ENV_KEYS : ENV_KEYS.filter(([name]) => only.has(name));
  const formerOf = new Map(ENV_ALIASES.map(([former, current]) => [current, former]));
  for (const [name, field, kind] of keys) {
    const former = formerOf.get(name);
    const formerRaw = former === undefined ? undefined : env[former];
    if (formerRaw !== undefined && env[name] !== undefined && formerRaw !== env[name])
      problems.push(
        `${name}: ${former} (its former name) is set to something else; set only ${name}`,
      );
    const raw = env[name] ?? formerRaw;
    if (raw === undefined || (raw === '' && kind !== 'list')) continue;
    const value = convert(name, raw, kind, problems);
    if (value !== undefined) plain[field] = value;
  }
  const config = Object.assign(plainToInstance(AppConfig, plain), overrides);
  const fieldToEnv = new Map(ENV_KEYS.map(([name, field]) => [field as string, name]));
  const errors = validateSync(config, { forbidUnknownValues: true }).filter(
    (e) => only === undefined || only.has(fieldToEnv.get(e.property) ?? e.property),
  );
  problems.push(...flatten(errors, fieldToEnv));
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
