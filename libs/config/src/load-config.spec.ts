import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadDatabaseConfig } from './load-config.js';
import { serverSecretKeys } from './server-secret.js';

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      dataDir: './.data',
      logLevel: 'info',
    });
    expect(c.embedded).toBe(true);
    expect(c.mcpUrl).toBe('http://127.0.0.1:3000/mcp');
  });

  it('converts types and lists', () => {
    const c = loadConfig({
      PORT: '8080',
      MCP_ALLOWED_ORIGINS: 'https://a.example.com, https://b.example.com',
      TRUST_PROXY: 'true',
      PUBLIC_BASE_URL: 'https://mcp.example.com/',
    });
    expect(c.port).toBe(8080);
    expect(c.mcpAllowedOrigins).toEqual(['https://a.example.com', 'https://b.example.com']);
    expect(c.trustProxy).toBe(true);
    expect(c.mcpUrl).toBe('https://mcp.example.com/mcp');
  });

  it('validates the Redis settings', () => {
    expect(loadConfig({ REDIS_URL: 'rediss://:pw@cache.internal:6380/1' }).redisUrl).toBe(
      'rediss://:pw@cache.internal:6380/1',
    );
    expect(loadConfig({}).redisKeyPrefix).toBe('platform-mcp');
    expect(() => loadConfig({ REDIS_URL: 'http://cache', REDIS_KEY_PREFIX: 'has space' })).toThrow(
      /REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL[\s\S]*REDIS_KEY_PREFIX: must be/,
    );
  });

  it('lists every bad key at once', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        LOG_LEVEL: 'loud',
        DATABASE_URL: 'mysql://x',
        CONFIRMATION_TTL_SECONDS: '1',
        MCP_ALLOWED_ORIGINS: 'not an origin',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = error instanceof ConfigError ? error.problems.join('\n') : '';
    for (const key of [
      'PORT',
      'LOG_LEVEL',
      'DATABASE_URL',
      'CONFIRMATION_TTL_SECONDS',
      'MCP_ALLOWED_ORIGINS',
    ]) {
      expect(problems).toContain(key);
    }
  });

  it('PORTAL_INVITATION_URL must be an http(s) URL with a {token} placeholder', () => {
    expect(
      loadConfig({ PORTAL_INVITATION_URL: 'https://portal.example.com/invite/{token}' })
        .portalInvitationUrl,
    ).toBe('https://portal.example.com/invite/{token}');
    expect(() =>
      loadConfig({ PORTAL_INVITATION_URL: 'https://portal.example.com/invite' }),
    ).toThrow(/PORTAL_INVITATION_URL: must contain \{token\}/);
    expect(() => loadConfig({ PORTAL_INVITATION_URL: 'javascript:{token}' })).toThrow(
      /PORTAL_INVITATION_URL: must be an http\(s\) URL/,
    );
  });

  it('reads the former name CONFIRMATION_KEYS when SERVER_SECRET_KEYS is unset, and refuses the two disagreeing', () => {
    const key = 'k'.repeat(40);
    const db = 'postgres://u@h/db';
    expect(loadConfig({ DATABASE_URL: db, CONFIRMATION_KEYS: key }).serverSecretKeys).toEqual([
      key,
    ]);
    expect(
      loadConfig({ DATABASE_URL: db, CONFIRMATION_KEYS: key, SERVER_SECRET_KEYS: key })
        .serverSecretKeys,
    ).toEqual([key]);
    expect(() =>
      loadConfig({ DATABASE_URL: db, CONFIRMATION_KEYS: key, SERVER_SECRET_KEYS: 'j'.repeat(40) }),
    ).toThrow(/SERVER_SECRET_KEYS: CONFIRMATION_KEYS \(its former name\) is set to something else/);
    expect(() => loadConfig({ DATABASE_URL: db, CONFIRMATION_KEYS: 'short' })).toThrow(
      /SERVER_SECRET_KEYS: each key must be at least 32/,
    );
  });

  it('hands out the server secret only when there is one: no key derives from an empty secret', () => {
    expect(() => serverSecretKeys({ serverSecretKeys: [] })).toThrow(/SERVER_SECRET_KEYS is empty/);
    expect(() => serverSecretKeys({ serverSecretKeys: [''] })).toThrow(
      /SERVER_SECRET_KEYS is empty/,
    );
    expect(serverSecretKeys({ serverSecretKeys: ['a'.repeat(32), 'b'.repeat(32)] })).toEqual([
      'a'.repeat(32),
      'b'.repeat(32),
    ]);
  });

  it('requires the server secret when running against an external Postgres', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@h/db' })).toThrow(/SERVER_SECRET_KEYS/);
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://u@h/db', SERVER_SECRET_KEYS: 'short' }),
    ).toThrow(/at least 32/);
    const ok = loadConfig({
      DATABASE_URL: 'postgres://u@h/db',
      SERVER_SECRET_KEYS: 'k'.repeat(32) + ',' + 'j'.repeat(40),
    });
    expect(ok.serverSecretKeys).toHaveLength(2);
  });
});

describe('tracing', () => {
  it('is off unless an OTLP endpoint or a traces exporter is named; OTEL_SDK_DISABLED wins', () => {
    expect(loadConfig({}).tracing).toBe(false);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toBe(true);
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }).tracing,
    ).toBe(true);
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing).toBe(true);
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'none' }).tracing).toBe(false);
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })
        .tracing,
    ).toBe(false);
    expect(loadConfig({}).otelServiceName).toBe('platform-mcp');
  });

  it('captures tool arguments and results on spans only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true', () => {
    expect(loadConfig({}).otelCaptureToolContent).toBe(false);
    const on = { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' };
    expect(loadConfig(on).otelCaptureToolContent).toBe(true);
    expect(() =>
      loadConfig({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'SPAN_ONLY' }),
    ).toThrow(/OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT/);
  });

  it('TRACE_URL_TEMPLATE must be an http(s) URL with a {traceId} placeholder', () => {
    expect(() => loadConfig({ TRACE_URL_TEMPLATE: 'http://jaeger:16686/trace/' })).toThrow(
      /TRACE_URL_TEMPLATE/,
    );
    expect(
      loadConfig({ TRACE_URL_TEMPLATE: 'http://jaeger:16686/trace/{traceId}' }).traceUrlTemplate,
    ).toBe('http://jaeger:16686/trace/{traceId}');
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });
});

describe('NODE_ENV and the database bounds', () => {
  it('refuses the MCP conformance fixtures in production, saying why', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', MCP_CONFORMANCE_FIXTURES: 'true' })).toThrow(
      /MCP_CONFORMANCE_FIXTURES.*testing only/s,
    );
    expect(
      loadConfig({ NODE_ENV: 'test', MCP_CONFORMANCE_FIXTURES: 'true' }).mcpConformanceFixtures,
    ).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).mcpConformanceFixtures).toBe(false);
  });

  it('accepts any NODE_ENV (staging boots); only production refuses development settings', () => {
    expect(loadConfig({ NODE_ENV: 'staging' }).nodeEnv).toBe('staging');
    expect(() =>
      loadConfig({ NODE_ENV: 'production', OAUTH_CIMD_ALLOW_PRIVATE_HOSTS: 'true' }),
    ).toThrow(/OAUTH_CIMD_ALLOW_PRIVATE_HOSTS/);
    expect(
      loadConfig({ NODE_ENV: 'staging', OAUTH_CIMD_ALLOW_PRIVATE_HOSTS: 'true' }).nodeEnv,
    ).toBe('staging');
  });

  it('bounds the database by default in seconds, configurable', () => {
    expect(loadConfig({})).toMatchObject({
      requestDeadlineMs: 5_000,
      dbStatementTimeoutMs: 5_000,
      dbIdleInTransactionTimeoutMs: 10_000,
      dbConnectTimeoutMs: 3_000,
      dbKeepaliveMs: 5_000,
    });
    expect(loadConfig({ DB_STATEMENT_TIMEOUT_MS: '800' }).dbStatementTimeoutMs).toBe(800);
    expect(() => loadConfig({ DB_CONNECT_TIMEOUT_MS: '0' })).toThrow(/DB_CONNECT_TIMEOUT_MS/);
    expect(loadConfig({ REQUEST_DEADLINE_MS: '2500' }).requestDeadlineMs).toBe(2_500);
    expect(() => loadConfig({ REQUEST_DEADLINE_MS: '10' })).toThrow(/REQUEST_DEADLINE_MS/);
  });
});

describe('loadDatabaseConfig (the migration command)', () => {
  it('needs only DATABASE_URL: no server secret, other settings ignored', () => {
    expect(
      loadDatabaseConfig({
        DATABASE_URL: 'postgres://u@h/db',
        SMTP_URL: 'not a url',
        LOG_LEVEL: 'x',
      }),
    ).toEqual({ databaseUrl: 'postgres://u@h/db', dataDir: './.data' });
  });

  it('knows the MCP URL (for OAuth tokens without an audience) from PUBLIC_BASE_URL, or for the embedded database', () => {
    expect(
      loadDatabaseConfig({
        DATABASE_URL: 'postgres://u@h/db',
        PUBLIC_BASE_URL: 'https://mcp.example.com',
      }).mcpUrl,
    ).toBe('https://mcp.example.com/mcp');
    expect(loadDatabaseConfig({ PORT: '4000' }).mcpUrl).toBe('http://127.0.0.1:4000/mcp');
    expect(() => loadDatabaseConfig({ DATABASE_URL: 'mysql://u@h/db' })).toThrow(/DATABASE_URL/);
  });
});

describe('.env.example', () => {
  it('documents every key the server reads', async () => {
    const { readFile } = await import('node:fs/promises');
    const { ENV_KEYS } = await import('./load-config.js');
    const text = await readFile(new URL('../../../.env.example', import.meta.url), 'utf8');
    for (const [name] of ENV_KEYS) {
      expect(text, name).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
    }
  });
});

describe('README configuration table', () => {
  it('has a row for every key the server reads', async () => {
    const { readFile } = await import('node:fs/promises');
    const { ENV_KEYS } = await import('./load-config.js');
    const text = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
    for (const [name] of ENV_KEYS) {
      expect(text, name).toMatch(new RegExp(`^\\| \`${name}\` +\\|`, 'm'));
    }
  });
});
