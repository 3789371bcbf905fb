import { Module, RequestMethod, type DynamicModule, type Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { ClsModule } from 'nestjs-cls';
import { LoggerModule } from 'nestjs-pino';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { destination, type DestinationStream } from 'pino';
import type { Options as HttpLoggerOptions } from 'pino-http';
import { AccessGuard, AccessModule } from '@app/access';
import { AdminConsoleModule, ConsoleSessionGuard } from '@app/admin-console';
import { correlationIdOf } from '@app/common';
import { AppConfig, ConfigModule } from '@app/config';
import { DatabaseModule, isDatabaseUnavailable, logSafeError } from '@app/database';
import { DemoModule } from '@app/demo';
import { ApiExceptionFilter } from '@app/errors';
import { HealthModule } from '@app/health';
import { BearerAuthGuard, IdentityModule, redactUrl } from '@app/identity';
import { MeModule } from '@app/me';
import { MetricsModule } from '@app/metrics';
import { RateLimitModule, TokenRateLimitGuard } from '@app/rate-limit';
import { HistoryPartitionsModule } from '@app/history-partitions';
import { McpHistoryModule } from '@app/mcp-history';
import { ApprovalsModule } from '@app/approvals';
import { ConfirmationPoliciesModule } from '@app/confirmation-policies';
import { ConfirmationPageModule } from '@app/confirmation-page';
import { McpServerModule, mcpTransportErrorBody, wwwAuthenticateChallenge } from '@app/mcp-server';
import { PortalUsersModule } from '@app/portal-users';
import { AccountsModule } from '@app/accounts';
import { AuditTrailModule } from '@app/audit-trail';
import { MailModule } from '@app/mail';
import { OrgAdminModule } from '@app/org-admin';
import { OAuthServerModule } from '@app/oauth-server';
import { traceLogFields } from '@app/tracing';

const QUIET_PATHS = /^\/(health\/|metrics(\?|$))/;

/**
 * The logger's options, and at a terminal a synchronous stdout: a person is reading there, and an
 * asynchronous write that the terminal refuses for a moment lands after the start-up banner
 * (written to stderr right after the last start-up line), which is then no longer the last thing
 * on screen. Log shippers (stdout not a terminal) keep pino's asynchronous default.
 */
function atTerminal(
  options: HttpLoggerOptions,
): HttpLoggerOptions | [HttpLoggerOptions, DestinationStream] {
  return process.stdout.isTTY ? [options, destination({ dest: 1, sync: true })] : options;
}

/** Wiring only: which libraries make up the server, and the global filter and guards. */
@Module({})
export class AppModule {
  /** `testingModules`: modules only tests add, which this file never imports (see bootstrap.ts). */
  static forRoot(
    config: AppConfig,
    databaseUrl: string,
    testingModules: readonly Type[] = [],
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        ClsModule.forRoot({
          global: true,
          middleware: {
            mount: true,
            generateId: true,
            // The adapter's genReqId (app.setup.ts) has set the string id on every raw request.
            idGenerator: (req: IncomingMessage & { id: string }) => req.id,
            // No proxy providers and no plugins are used: skip resolving them on every request
            // (the default awaits a dynamic import and walks the proxy registry per request).
            resolveProxyProviders: false,
            initializePlugins: false,
          },
        }),
        LoggerModule.forRoot({
          // Every route (the library's default wildcard does not reach routes under Fastify).
          forRoutes: [{ path: '*path', method: RequestMethod.ALL }],
          pinoHttp: atTerminal({
            level: config.logLevel,
            // When tracing, every line written inside a traced request names its trace and span.
            ...(config.tracing ? { mixin: traceLogFields } : {}),
            genReqId: (req) => req.id ?? '',
            // No access lines for probes and scrapes.
            autoLogging: {
              ignore: (req) =>
                QUIET_PATHS.test(
                  (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '',
                ),
            },
            redact: {
              paths: ['req.headers.authorization', 'req.headers.cookie'],
              censor: '[redacted]',
            },
            serializers: {
              // Database errors without their parameters, detail or message (request data).
              err: logSafeError,
              // Secrets in a URL (a token in the query, the invitation token in its path) never
              // reach the log.
              // The client's own X-Request-Id, if any, is a correlation field beside our id.
              req: (req: {
                id: string;
                method: string;
                url: string;
                headers: IncomingHttpHeaders;
              }) => {
                const correlationId = correlationIdOf(req.headers['x-request-id']);
                return {
                  id: req.id,
                  ...(correlationId === null ? {} : { correlationId }),
                  method: req.method,
                  url: redactUrl(req.url),
                };
              },
            },
          }),
        }),
        DatabaseModule.forRoot(databaseUrl, config.dbPoolSize, {
          statementTimeoutMs: config.dbStatementTimeoutMs,
          idleInTransactionTimeoutMs: config.dbIdleInTransactionTimeoutMs,
          connectTimeoutMs: config.dbConnectTimeoutMs,
          keepAliveInitialDelayMs: config.dbKeepaliveMs,
        }),
        HealthModule,
        MetricsModule,
        IdentityModule,
        MeModule,
        AccessModule,
        RateLimitModule,
        DemoModule,
        AuditTrailModule,
        MailModule,
        AccountsModule,
        PortalUsersModule,
        OrgAdminModule,
        McpHistoryModule,
        HistoryPartitionsModule,
        ConfirmationPoliciesModule,
        ApprovalsModule,
        McpServerModule,
        // Testing only (the conformance fixtures, loaded by startServer under their flag).
        ...testingModules,
        OAuthServerModule,
        ConfirmationPageModule,
        AdminConsoleModule,
      ],
      providers: [
        {
          provide: APP_FILTER,
          inject: [AppConfig],
          useFactory: (c: AppConfig) =>
            new ApiExceptionFilter({
              transportErrorBody: mcpTransportErrorBody,
              challenge: wwwAuthenticateChallenge(c),
              unavailable: isDatabaseUnavailable,
            }),
        },
        // The admin console's same-origin session first; everything else is a bearer token.
        { provide: APP_GUARD, useExisting: ConsoleSessionGuard },
        { provide: APP_GUARD, useExisting: BearerAuthGuard },
        { provide: APP_GUARD, useExisting: TokenRateLimitGuard },
        { provide: APP_GUARD, useExisting: AccessGuard },
      ],
    };
  }
}
