import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { defaultAdminConsoleDir, registerAdminConsole } from '@app/admin-console';
import { MCP_PATH, type AppConfig } from '@app/config';
import { parseFormBody } from '@app/common';
import { DomainError, mapException, writeClientError, writeExpectationFailed } from '@app/errors';
import { poolStats, withDatabaseDeadline } from '@app/database';
import { MetricsService, registerHttpMetrics } from '@app/metrics';
import { DataSource } from 'typeorm';
import { ipRateLimitHook, RateLimitService } from '@app/rate-limit';
import { registerMcpRejectionMetrics, requestGate } from '@app/mcp-server';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '@app/mcp-transport';
import { mountOAuthServer, oauthParameterRefusal } from '@app/oauth-server';
import { redactUrl } from '@app/identity';
import { nameHttpSpansByRoute } from '@app/tracing';

export const BODY_LIMIT_BYTES = 1024 * 1024;
const FORM_BODY_LIMIT_BYTES = 16 * 1024;
/** How often Node looks for requests that outlived the receive timeout (its default is 30 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** The per-IP budget of each Fastify instance, once its app is configured. */
const ipBudgets = new WeakMap<
  object,
  (request: FastifyRequest, reply: FastifyReply) => Promise<void>
>();

/** Every route registered on each Fastify instance (method and pattern), in registration order. */
const routeTables = new WeakMap<object, { method: string; url: string }[]>();

/** The Fastify routes of a configured app, as registered (the OAuth server's mount is not one). */
export function routeTable(
  app: NestFastifyApplication,
): readonly { method: string; url: string }[] {
  return routeTables.get(app.getHttpAdapter().getInstance()) ?? [];
}

/** The Fastify instance, the same for the server and the test harness. */
export function createFastifyAdapter(config: AppConfig): FastifyAdapter {
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    // One bound on receiving a request, headers and body alike (Fastify's default is none): a
    // client that dribbles its body holds a connection and a parser. Node answers 408 through
    // the client-error handler below, in the envelope.
    requestTimeout: config.requestReceiveTimeoutMs,
    http: {
      headersTimeout: config.requestReceiveTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    logger: false,
    // Fastify's own refusals (a malformed URL, a path parameter too long; headers too large, a
    // request too slow) answer with the envelope, like every other response, never echoing the URL.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      const { status, envelope } = mapException(error, request.id);
      void reply.status(status).header('content-type', 'application/json').send(envelope);
    },
    clientErrorHandler: writeClientError,
    // Every request gets an id the server issued: history rows, audit events and confirmations
    // are linked by it. A client's X-Request-Id is never adopted (anyone can send anyone's): it is
    // kept beside it as the correlation id (correlationIdOf), in the log line and the history.
    genReqId: (raw: IncomingMessage) => {
      const id = randomUUID();
      // pino-http and the request context read the same id off the raw request.
      raw.id = id;
      return id;
    },
  });
  // Every request's database waits (the per-IP budget's too) draw on one deadline, started before
  // anything else runs: the rest of the request, body parsing included, runs inside it.
  const fastify = adapter.getInstance();
  nameHttpSpansByRoute(fastify, redactUrl);
  fastify.addHook('onRequest', (_request, _reply, done) => {
    withDatabaseDeadline(config.requestDeadlineMs, done);
  });
  // The per-IP budget and then the request gate (Host, Origin on /mcp) are the next onRequest
  // hook, ahead of the one Nest adds for its middleware, where the OAuth server is mounted: a
  // hook added after that one never sees /oauth/* (client registration, token, authorize).
  // configureApp supplies the budget; the gate needs only the configuration.
  const gate = requestGate(config);
  fastify.addHook('onRequest', async (request, reply) => {
    await ipBudgets.get(fastify)?.(request, reply);
    if (!reply.sent) await gate(request, reply);
  });
  const routes: { method: string; url: string }[] = [];
  routeTables.set(fastify, routes);
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  // `Expect` other than 100-continue: Node would answer a bare 417 of its own.
  fastify.server.on('checkExpectation', writeExpectationFailed);
  return adapter;
}

/** Everything applied to the app after creation; used by `main.ts` and by the tests alike. */
export function configureApp(app: NestFastifyApplication, config: AppConfig): void {
  app.useLogger(app.get(Logger));
  const fastify = app.getHttpAdapter().getInstance();
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser<string>(
    'application/json',
    { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES },
    (request, body, done) => {
      // The MCP endpoint parses its own JSON-RPC: its body is handed over unparsed.
      if (request.routeOptions.url === MCP_PATH) return done(null, body);
      if (body === '') return done(null, undefined);
      if (exceedsJsonDepth(body)) {
        const err = Object.assign(
          new Error(`Request body nests deeper than ${MAX_JSON_DEPTH} levels`),
          { statusCode: 400, code: 'FST_ERR_CTP_JSON_TOO_DEEP' },
        );
        return done(err, undefined);
      }
      try {
        done(null, JSON.parse(body));
      } catch {
        const err = Object.assign(new Error('Request body is not valid JSON'), {
          statusCode: 400,
          code: 'FST_ERR_CTP_INVALID_JSON_BODY',
        });
        done(err, undefined);
      }
    },
  );
  // The sign-in and consent pages post plain HTML forms (and so does the invitation page). Their
  // fields meet the OAuth server's rule for form parameters (well-formed UTF-8, no U+0000, a
  // length cap), checked before any page reads them; a repeated field is kept as a list.
  fastify.addContentTypeParser<string>(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES },
    (_request, body, done) => {
      const parsed = parseFormBody(body);
      const refusal = 'refusal' in parsed ? parsed.refusal : oauthParameterRefusal(parsed.fields);
      if (refusal !== undefined) return done(new DomainError('BAD_REQUEST', refusal), undefined);
      done(null, 'fields' in parsed ? parsed.fields : undefined);
    },
  );
  mountOAuthServer(app);
  const metrics = app.get(MetricsService);
  const dataSource = app.get(DataSource);
  metrics.setPoolStatsSource(() => poolStats(dataSource));
  // Every /mcp refusal (401, 403, 405, 406, 413, 415, 429 per IP or per token) counts once, here.
  registerMcpRejectionMetrics(fastify, metrics);
  registerHttpMetrics(fastify, metrics);
  ipBudgets.set(fastify, ipRateLimitHook(app.get(RateLimitService)));
  registerAdminConsole(fastify, { dir: defaultAdminConsoleDir() });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('x-request-id', request.id);
    done(null, payload);
  });

  const openapi = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Platform API')
      .setDescription(
        'Organisations, members, portal users, customer accounts, tokens and the audit trail.',
      )
      .setVersion('1')
      .addBearerAuth({
        type: 'http',
        scheme: 'bearer',
        // Opaque secrets looked up by hash, not JWTs: nothing in them can be decoded or verified.
        bearerFormat: 'opaque',
        description:
          'An opaque token in the Authorization header only: `pat_…` (personal) or `oat_…` (OAuth).',
      })
      .addServer(config.baseUrl)
      .build(),
  );
  fastify.get('/v1/openapi.json', (_req, reply) => {
    void reply.header('content-type', 'application/json').send(openapi);
  });
}
