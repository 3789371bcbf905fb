import {
  context,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Link,
} from '@opentelemetry/api';
import { isJsonObject } from '@app/common';
import {
  META_FIELD,
  rpcErrorCodeOf,
  type McpMessageScope,
  type McpMessageStart,
  type McpObservation,
} from '@app/mcp-transport';
import { markFailed, parentContext, startServerSpan } from '@app/tracing';

/** The W3C trace context a request may carry in `params._meta` (SEP-414: unprefixed by exception). */
const TRACE_CONTEXT_KEYS = ['traceparent', 'tracestate', 'baggage'] as const;
/** A JSON-RPC id recorded as it is: a number, or a short plain string (never an e-mail or a secret). */
const RECORDABLE_ID = /^[A-Za-z0-9_-]{1,36}$/;
/** A 2025 session id of the shape this server issues (signed; it carries only the client's name). */
const SESSION_ID = /^[A-Za-z0-9._~-]{1,512}$/;
const SESSION_HEADER = 'mcp-session-id';

/**
 * One SERVER span per MCP message, as the OpenTelemetry MCP semantic conventions name it:
 * `{mcp.method.name} {gen_ai.tool.name}` (the method alone for other methods), with
 * `mcp.method.name`, `jsonrpc.request.id`, `mcp.protocol.version`, `mcp.session.id`,
 * `gen_ai.tool.name` and `gen_ai.operation.name=execute_tool` for `tools/call`,
 * `rpc.response.status_code` and `error.type` for a JSON-RPC error, `error.type=tool_error` for an
 * `isError` result. Its parent is the caller's `_meta.traceparent` when it sent one (the agent's
 * trace), else the HTTP request's span; a span parented by `_meta` links to the HTTP span. Everything
 * the handler does (authorization, confirmation, dispatch, SQL, Redis, history) is its child.
 *
 * Only our own vocabulary reaches the span: a tool name only when the registry has it, an id only
 * when it is a number or a short plain string; never arguments, results or anything personal.
 */
export class McpTracing {
  constructor(private readonly isKnownTool: (name: string) => boolean) {}

  start(message: McpMessageStart): McpMessageScope {
    // The HTTP request's context; for a request the sampler dropped, its span put back as the
    // parent (the request runs detached from it), so this span is dropped with it.
    const httpContext = parentContext();
    const carried = contextFromMeta(message.params);
    const parent = carried ?? httpContext;
    const links: Link[] = [];
    const httpSpan = trace.getSpanContext(httpContext);
    if (carried !== undefined && httpSpan !== undefined && trace.isSpanContextValid(httpSpan))
      links.push({ context: httpSpan });

    const { method } = message;
    const attributes: Attributes = {
      'mcp.method.name': method,
      'jsonrpc.protocol.version': '2.0',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    };
    const id = message.id;
    if (typeof id === 'number' || (typeof id === 'string' && RECORDABLE_ID.test(id)))
      attributes['jsonrpc.request.id'] = String(id);
    let name = method;
    if (method === 'tools/call') {
      attributes['gen_ai.operation.name'] = 'execute_tool';
      const tool = message.params?.name;
      if (typeof tool === 'string' && this.isKnownTool(tool)) {
        attributes['gen_ai.tool.name'] = tool;
        name = `${method} ${tool}`;
      }
    }
    const session = message.headers[SESSION_HEADER];
    if (session !== undefined && SESSION_ID.test(session)) attributes['mcp.session.id'] = session;

    const started = startServerSpan(name, { attributes, links }, parent);
    const { span } = started;
    return {
      traceId: started.sampledTraceId,
      run: (serve) => context.with(started.context, serve),
      end: (observation) => {
        if (observation.protocolVersion !== 'unknown')
          span.setAttribute('mcp.protocol.version', observation.protocolVersion);
        const errorType = errorTypeOf(observation);
        if (errorType !== undefined) markFailed(span, errorType);
        const code = rpcErrorCodeOf(observation.outcome);
        if (code !== undefined) span.setAttribute('rpc.response.status_code', String(code));
        span.end();
      },
    };
  }
}

/**
 * The convention's `error.type`: `tool_error` for an `isError` result, the JSON-RPC error code for
 * an error answer, the HTTP status for a transport refusal; none for success.
 */
export function errorTypeOf(observation: McpObservation): string | undefined {
  const code = rpcErrorCodeOf(observation.outcome);
  if (code !== undefined) return String(code);
  if (observation.outcome.startsWith('http_')) return observation.outcome.slice('http_'.length);
  return observation.toolError === true ? 'tool_error' : undefined;
}

/** The context `_meta.traceparent` (with `tracestate`, `baggage`) names; undefined without a valid one. */
function contextFromMeta(params: Record<string, unknown> | undefined): Context | undefined {
  const meta = params?.[META_FIELD];
  if (!isJsonObject(meta) || typeof meta.traceparent !== 'string') return undefined;
  const carrier: Record<string, string> = {};
  for (const key of TRACE_CONTEXT_KEYS) {
    const value = meta[key];
    if (typeof value === 'string') carrier[key] = value;
  }
  const extracted = propagation.extract(context.active(), carrier);
  const spanContext = trace.getSpanContext(extracted);
  return spanContext !== undefined && trace.isSpanContextValid(spanContext) ? extracted : undefined;
}
