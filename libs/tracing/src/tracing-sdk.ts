import type { IncomingMessage } from 'node:http';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { context, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { Client } from 'pg';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { traceStatements } from './pg-spans.js';
import { redactTarget, TRACER_NAME } from './spans.js';
import type { TracingSettings } from './tracing-settings.js';

/** Probes and scrapes: no trace of their own (they would outnumber every real request). */
const UNTRACED_PATHS = /^\/(health\/|metrics(\?|$))/;

/** What `startSdk` started: the SDK, and the undo of the `pg` statement spans. */
export interface StartedSdk {
  sdk: NodeSDK;
  untraceStatements: () => void;
}

/**
 * The OpenTelemetry Node SDK, for traces only, with the instrumentations this server needs: HTTP
 * (server spans, named after the route by `registerHttpRoute`) and `ioredis` (one span per
 * command: its name only); and ours for `pg` (one span per SQL statement: its text, never its
 * parameters; `traceStatements`, which makes the spans `@opentelemetry/instrumentation-pg` made
 * at a fraction of its cost per statement, without a span per pool checkout). The
 * exporter, endpoint, sampler and resource come from the standard `OTEL_*` variables (the SDK reads
 * them); the service name and version are ours unless `OTEL_SERVICE_NAME` /
 * `OTEL_RESOURCE_ATTRIBUTES` say otherwise.
 *
 * Loaded only by `startTracing` (a dynamic import), so a server without tracing never loads the SDK.
 */
export function startSdk(settings: TracingSettings): StartedSdk {
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
      new IORedisInstrumentation({
        // The command name only: keys name tokens and client addresses.
        dbStatementSerializer: (command) => command,
        requireParentSpan: true,
      }),
    ],
  });
  sdk.start();
  // Statement text only: parameters are request data (e-mails, names, token hashes). No span per
  // pool checkout (it said only that a connection was free, which the statements' own spans
  // imply; a checkout that waits shows as the gap before its first statement). The `pg` module
  // is CommonJS: TypeORM, the rate-limit store and `libs/database` share this one `Client`.
  const untraceStatements = traceStatements(Client, trace.getTracer(`${TRACER_NAME}-pg`));
  return { sdk, untraceStatements };
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
