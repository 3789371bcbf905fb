import {
  context,
  createContextKey,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';

/** The instrumentation scope of every span this server makes itself. */
export const TRACER_NAME = 'platform-mcp';

let tracer: Tracer | undefined;
let captureToolContent = false;
let routeRecorder: ((route: string) => void) | undefined;
/** Until the app supplies its URL redaction ({@link nameHttpSpansByRoute}), no target is recorded. */
let targetRedaction: (target: string) => string = () => '/';

/**
 * Whether this process traces. Set once, by {@link markTracingStarted} after the SDK started (see
 * `startTracing`); until then every helper here runs its function and nothing else, so a server
 * without `OTEL_*` settings pays one boolean test per call site.
 */
export function tracingActive(): boolean {
  return tracer !== undefined;
}

/** Called by `startTracing` once the SDK is registered (and by nothing else). */
export function markTracingStarted(
  recordRoute: (route: string) => void,
  options: { captureToolContent: boolean },
): void {
  tracer = trace.getTracer(TRACER_NAME);
  routeRecorder = recordRoute;
  captureToolContent = options.captureToolContent;
}

/**
 * Whether `tools/call` spans carry the call's arguments and result (the conventions' opt-in
 * `gen_ai.tool.call.arguments` / `gen_ai.tool.call.result`): only when tracing and the
 * configuration opted in (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`).
 */
export function capturesToolContent(): boolean {
  return tracer !== undefined && captureToolContent;
}

/**
 * Called once the SDK has shut down (see `startTracing`): the helpers here go back to running
 * their function and nothing else, as before {@link markTracingStarted}.
 */
export function markTracingStopped(): void {
  tracer = undefined;
  routeRecorder = undefined;
  captureToolContent = false;
}

/**
 * Sets attributes on the active span (the MCP message's span, where the executor runs), if any.
 * The same rule as {@link inSpan}: bounded values of our own vocabulary, except the opt-in content
 * {@link capturesToolContent} allows.
 */
export function annotateActiveSpan(attributes: Attributes): void {
  if (tracer === undefined) return;
  trace.getSpan(context.active())?.setAttributes(attributes);
}

/** A request target as an HTTP span may record it (the app's URL redaction). */
export function redactTarget(target: string): string {
  return targetRedaction(target);
}

/**
 * When tracing: every HTTP server span is named after the route that took its request
 * (`GET /v1/users/:id`; the REST requests' spans are the ordinary HTTP ones), at the first hook,
 * and records its target through `redact` (secrets in a path or query replaced).
 */
export function nameHttpSpansByRoute(
  fastify: FastifyInstance,
  redact: (target: string) => string,
): void {
  const record = routeRecorder;
  if (record === undefined) return;
  targetRedaction = redact;
  // A request the sampler dropped is handled without its span (see detachUnsampled): from this
  // first hook (the per-IP budget and the request gate come next), and again once the body is read
  // (the HTTP instrumentation binds the request's events to its span's context), for the guards,
  // the token budget and the handler. Its HTTP span still ends and is named as before; its access
  // log line is written in the span's own context.
  fastify.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined && route !== '') record(route);
    runDetached(done);
  });
  fastify.addHook('preHandler', (_request, _reply, done) => runDetached(done));
}

function runDetached(next: () => void): void {
  const active = context.active();
  const detached = detachUnsampled(active);
  if (detached === active) next();
  else context.with(detached, next);
}

/**
 * The context a span of ours should be parented by: the active one, with a detached unsampled
 * call's span put back as a parent (not recording), so the sampler drops its children too
 * instead of starting a trace of their own.
 */
export function parentContext(): Context {
  const active = context.active();
  if (trace.getSpan(active) !== undefined) return active;
  const kept = keptTrace(active);
  return kept === undefined ? active : trace.setSpanContext(active, kept);
}

/** A SERVER span started by {@link startServerSpan}. */
export interface ServerSpan {
  span: Span;
  /** The context the message's work runs in: the span's, detached if the sampler dropped it. */
  context: Context;
  /** The span's trace id when the sampler kept it (a dropped trace leads nowhere). */
  sampledTraceId: string | undefined;
}

/**
 * Starts a SERVER span under `parent` for one message a transport received (an MCP message; the
 * HTTP instrumentation makes the HTTP requests' own). Only call when {@link tracingActive}.
 */
export function startServerSpan(
  name: string,
  options: { attributes: Attributes; links: Link[] },
  parent: Context,
): ServerSpan {
  const span = serverTracer().startSpan(name, { kind: SpanKind.SERVER, ...options }, parent);
  const { traceId, traceFlags } = span.spanContext();
  return {
    span,
    // A message the sampler dropped runs without its span (its ids kept for logs and history),
    // so the SQL and Redis instrumentations below it make no spans that would be dropped anyway.
    context: detachUnsampled(trace.setSpan(parent, span)),
    sampledTraceId: (traceFlags & TraceFlags.SAMPLED) !== 0 ? traceId : undefined,
  };
}

/** The tracer of this server's own spans; only call when {@link tracingActive}. */
export function serverTracer(): Tracer {
  if (tracer === undefined) throw new Error('Tracing has not started');
  return tracer;
}

/**
 * Runs `fn` in a child span named `name` of the active span (an INTERNAL span: a step of the
 * request, e.g. the authorization checks). Attributes must be bounded values from our own
 * vocabulary: never input, secrets or personal data. A thrown error marks the span as failed (its
 * type only, never its message) and is passed on. {@link inSpanAsync} for a promise.
 */
export function inSpan<T>(name: string, fn: () => T, attributes?: Attributes): T {
  if (tracer === undefined || underUnsampledSpan()) return fn();
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, (span) => {
    try {
      const result = fn();
      span.end();
      return result;
    } catch (error) {
      endFailed(span, error);
      throw error;
    }
  });
}

/**
 * {@link inSpan} for asynchronous work: the span ends when the promise settles. `outcome`, if
 * given, names attributes of the result (bounded values, like `attributes`) set before it ends.
 */
export function inSpanAsync<T>(
  name: string,
  fn: () => Promise<T>,
  attributes?: Attributes,
  outcome?: (result: T) => Attributes,
): Promise<T> {
  if (tracer === undefined || underUnsampledSpan()) return fn();
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      const result = await fn();
      if (outcome !== undefined) span.setAttributes(outcome(result));
      span.end();
      return result;
    } catch (error) {
      endFailed(span, error);
      throw error;
    }
  });
}

/**
 * Where a call the sampler dropped keeps its trace ids once {@link detachUnsampled} took its span
 * out of the context: the log lines, the history row and the audit events still carry them.
 */
const UNSAMPLED_TRACE = createContextKey('platform-mcp unsampled trace');

/**
 * `ctx` as a call's work should run in: unchanged when its span is recorded or sampled; when the
 * sampler dropped it, without the span but with its ids kept aside. Below a dropped span every
 * instrumentation still makes a span (pg and ioredis one per statement and command, each sampled
 * and dropped in turn, its callbacks bound to its context); with no span in the context they skip
 * (`requireParentSpan`), as {@link inSpan} does, and nothing is lost: none of it would be exported.
 */
export function detachUnsampled(ctx: Context): Context {
  const span = trace.getSpan(ctx);
  if (span === undefined || !isDropped(span)) return ctx;
  return trace.deleteSpan(ctx).setValue(UNSAMPLED_TRACE, span.spanContext());
}

/** The active trace's ids: its span's, or those a detached unsampled call kept. */
function activeSpanContext(): SpanContext | undefined {
  const active = context.active();
  return trace.getSpanContext(active) ?? keptTrace(active);
}

/** The ids {@link detachUnsampled} kept in `ctx`, if it did. */
function keptTrace(ctx: Context): SpanContext | undefined {
  const kept = ctx.getValue(UNSAMPLED_TRACE);
  return isSpanContext(kept) ? kept : undefined;
}

function isSpanContext(value: unknown): value is SpanContext {
  return (
    typeof value === 'object' &&
    value !== null &&
    'traceId' in value &&
    typeof value.traceId === 'string' &&
    'spanId' in value &&
    typeof value.spanId === 'string' &&
    'traceFlags' in value &&
    typeof value.traceFlags === 'number'
  );
}

function isDropped(span: Span): boolean {
  return !span.isRecording() && (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0;
}

/**
 * Whether the active span is one the sampler dropped (neither recorded nor sampled): a child of it
 * would be dropped as well (every sampler the SDK names decides a child as its parent, or by the
 * same trace id), so {@link inSpan} does not make one. Making it cost a span object, its ids and a
 * context switch per step of every unsampled call (at sampling 0.1, nine calls in ten).
 */
function underUnsampledSpan(): boolean {
  const active = context.active();
  const parent = trace.getSpan(active);
  // A detached call (no span, its ids aside) is unsampled too: a span here would start a new trace.
  return parent === undefined ? keptTrace(active) !== undefined : isDropped(parent);
}

/**
 * Runs `fn` outside every trace: background work a request merely set off (a batch of history
 * rows written for many calls) is no part of that request's trace.
 */
export function outsideTraces<T>(fn: () => T): T {
  return tracer === undefined ? fn() : context.with(ROOT_CONTEXT, fn);
}

function endFailed(span: Span, error: unknown): void {
  markFailed(span, errorType(error));
  span.end();
}

/** Marks `span` failed: status ERROR, and what failed as the conventions' `error.type`. */
export function markFailed(span: Span, type: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', type);
}

/** An error's class name (`error.type`): its message may carry request data, so it never goes on a span. */
export function errorType(error: unknown): string {
  return error instanceof Error ? error.constructor.name : 'unknown';
}

/**
 * The trace id of the active span (32 hex digits), or null when nothing is traced: the id the
 * log line, the call-history row and the audit events of a request carry, so each leads to its trace.
 */
export function currentTraceId(): string | null {
  if (tracer === undefined) return null;
  const spanContext = activeSpanContext();
  return spanContext !== undefined && trace.isSpanContextValid(spanContext)
    ? spanContext.traceId
    : null;
}

/** The trace fields of a log line (pino `mixin`): the active span's ids, or none. */
export function traceLogFields(): { trace_id?: string; span_id?: string; trace_flags?: string } {
  const spanContext = activeSpanContext();
  if (spanContext === undefined || !trace.isSpanContextValid(spanContext)) return {};
  return {
    trace_id: spanContext.traceId,
    span_id: spanContext.spanId,
    trace_flags: `0${spanContext.traceFlags.toString(16)}`,
  };
}
