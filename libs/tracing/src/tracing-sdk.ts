import type { IncomingMessage } from 'node:http';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { context } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { redactTarget } from './spans.js';
import type { TracingSettings } from './tracing-settings.js';

/** Probes and scrapes: no trace of their own (they would outnumber every real request). */
const UNTRACED_PATHS = /^\/(health\/|metrics(\?|$))/;

/**
 * The OpenTelemetry Node SDK, for traces only, with the instrumentations this server needs: HTTP
 * (server spans, named after the route by `registerHttpRoute`), `pg` (one span per SQL statement:
 * its text, never its parameters) and `ioredis` (one span per command: its name only). The
 * exporter, endpoint, sampler and resource come from the standard `OTEL_*` variables (the SDK reads
 * them); the service name and version are ours unless `OTEL_SERVICE_NAME` /
 * `OTEL_RESOURCE_ATTRIBUTES` say otherwise.
 *
 * Loaded only by `startTracing` (a dynamic import), so a server without tracing never loads the SDK.
 */
export function startSdk(settings: TracingSettings): NodeSDK {
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    // OTEL_RESOURCE_ATTRIBUTES (e.g. the k8s.* attributes of the manifests) is merged over this.
    resource: resourceFromAttributes({ 'service.version': settings.serviceVersion }),
    // Traces only. Left to itself the SDK also starts an OTLP metrics pipeline (and a logs one):
    // the HTTP and pg instrumentations then record a duration histogram for every request and
    // statement, sampled or not (about a fifth of tracing's cost per call in bench/profile.mjs),
    // exported every minute to a collector that takes traces only (deploy/otel). This server's
    // metrics are Prometheus' (/metrics, with the MCP histogram and its exemplars), its logs pino's.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.test(request.url ?? ''),
        // Outgoing calls (mail, an upstream OpenID provider) are not part of a request's story
        // here, and a span per outgoing export request would trace the exporter itself.
        ignoreOutgoingRequestHook: () => true,
        startIncomingSpanHook: (request) => safeRequestAttributes(request),
      }),
      new StatementSpans({
        // Statement text only: parameters are request data (e-mails, names, token hashes).
        enhancedDatabaseReporting: false,
        requireParentSpan: true,
        ignoreConnectSpans: true,
      }),
      new IORedisInstrumentation({
        // The command name only: keys name tokens and client addresses.
        dbStatementSerializer: (command) => command,
        requireParentSpan: true,
      }),
    ],
  });
  sdk.start();
  return sdk;
}

/**
 * `@opentelemetry/instrumentation-pg` for the `pg` client only: one span per SQL statement, and
 * nothing of `pg-pool`. The package also wraps `Pool.prototype.connect` to make a
 * `pg-pool.connect` span per checkout (`ignoreConnectSpans` turns that off: it said only that a
 * connection was free, which the statements' own spans imply) and, span or not, adds listeners to
 * every pool's `connect`/`acquire`/`release`/`remove` events that count connections into its
 * metrics, which this server does not run (the SDK starts no metrics pipeline: every count goes
 * to a no-op meter). Those listeners cost about 160 µs of a traced call's CPU (docs/benchmarks.md,
 * "The cost of tracing: the SQL spans"); without the pool definition they are never added.
 * Pool health is in our own Prometheus metrics (`db_pool_connections`).
 */
class StatementSpans extends PgInstrumentation {
  protected override init() {
    const statements = super.init().filter((definition) => definition.name === 'pg');
    // A release that renamed its module definitions would otherwise trace no statement at all.
    if (statements.length === 0)
      throw new Error('instrumentation-pg has no `pg` module definition');
    return statements;
  }
}

/**
 * What the HTTP instrumentation records of a request, overridden where it would record request
 * data: the target without secrets (an invitation token in a path, a token in a query) and no
 * client address (personal data). Both the older and the stable attribute names are covered.
 */
function safeRequestAttributes(request: IncomingMessage): Record<string, string | undefined> {
  const target = redactTarget(request.url ?? '/');
  const queryAt = target.indexOf('?');
  return {
    'http.target': target,
    'http.url': undefined,
    'url.path': queryAt === -1 ? target : target.slice(0, queryAt),
    'url.query': queryAt === -1 ? undefined : target.slice(queryAt + 1),
    'net.peer.ip': undefined,
    'net.peer.port': undefined,
    'client.address': undefined,
    'client.port': undefined,
    'network.peer.address': undefined,
    'network.peer.port': undefined,
  };
}

/**
 * Names the active HTTP server span after the route that took the request (`GET /v1/users/:id`,
 * never the path with its values): the HTTP instrumentation applies it when the response ends.
 */
export function recordRoute(route: string): void {
  const metadata = getRPCMetadata(context.active());
  if (metadata?.type === RPCType.HTTP) metadata.route = route;
}
