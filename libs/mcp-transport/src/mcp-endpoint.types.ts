import type { HandledMethod } from './mcp-protocol.constants.js';
import type { McpSessionIds } from './session-id.codec.js';
import type { ParamHeader } from './param-headers.js';
import type { McpRequestChannel } from './request-channel.js';
import type { RpcErrorStatus } from './tool-call-status.js';

/** An authenticated `POST /mcp` as the controller hands it over. */
export interface McpHttpRequest {
  /** Lower-cased header names, one value each. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** Raw UTF-8 body, not yet parsed; its size was already checked (≤ 1 MiB). */
  readonly body: string;
  /**
   * The HTTP request id (also in logs). Returned to the caller as `error.data.requestId` of an
   * internal error so support can find the log line; never anything else.
   */
  readonly requestId: string;
}

/**
 * What the controller writes back. `body` is JSON text; it is absent for 202 and for a stream.
 * `stream` (status 200, `text/event-stream`): SSE chunks to write as they come, the last one the
 * JSON-RPC response; the controller calls `close()` if the client goes away first.
 */
export interface McpHttpResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
  stream?: McpResponseStream;
}

export interface McpResponseStream {
  chunks: AsyncIterable<string>;
  close(): void;
}

export type Era = 'legacy' | 'modern';

export type JsonRpcId = string | number;

export interface McpClientInfo {
  name: string;
  version?: string;
  [key: string]: unknown;
}

/** What a method handler sees about the request besides its params. */
export interface McpRequestContext {
  era: Era;
  /** Modern: the `_meta` version. Legacy: the MCP-Protocol-Version header (default 2025-03-26). */
  protocolVersion: string;
  method: string;
  jsonRpcId: JsonRpcId;
  /**
   * Modern: `_meta` clientInfo when it is an object with a string `name`. Legacy: the `clientInfo`
   * of `initialize`, read back from a valid `Mcp-Session-Id`; absent without one.
   */
  clientInfo?: McpClientInfo;
  /**
   * Modern: this request's declared capabilities. Legacy: `{}`, except `{ elicitation: { url: {} } }`
   * when the request's signed session id says its client declared URL-mode elicitation at a
   * 2025-11-25 `initialize` (the endpoint is stateless; nothing else is remembered or assumed).
   */
  clientCapabilities: Record<string, unknown>;
  /** Modern: `params._meta` as received. Legacy: `{}`. */
  meta: Record<string, unknown>;
  /** Progress, log messages and (2025) client requests on this request's own response stream. */
  channel: McpRequestChannel;
}

export type CacheScope = 'public' | 'private';

export interface McpCacheHint {
  /** Integer milliseconds ≥ 0; 0 means "immediately stale". */
  ttlMs: number;
  /** `private` whenever the result depends on who asks (per-token lists, records). */
  cacheScope: CacheScope;
}

export type McpHandlerOutcome =
  | {
      kind: 'complete';
      /** The method's result object, without `resultType`/`ttlMs`/`cacheScope` (the endpoint adds them). */
      result: Record<string, unknown>;
      /** Modern cacheable methods only; default `{ ttlMs: 0, cacheScope: 'private' }`. */
      cache?: McpCacheHint;
    }
  | {
      /** Modern `tools/call`, `resources/read`, `prompts/get` only (SEP-2322 MRTR). */
      kind: 'input_required';
      inputRequests?: Record<string, unknown>;
      requestState?: string;
    }
  | {
      /**
       * Modern `tools/call` only (the tasks extension): a task was created. `task` holds its
       * fields (`taskId`, `status`, timestamps, `ttlMs`, `pollIntervalMs`); the endpoint answers
       * them flat, with `resultType: "task"`.
       */
      kind: 'task';
      task: Record<string, unknown>;
    };

/**
 * One MCP method. `params` is the request's params object as received (including `_meta`; `{}` when
 * absent). Throw {@link McpError} for protocol errors; anything else thrown becomes -32603.
 */
export type McpMethodHandler<TExtra> = (
  params: Record<string, unknown>,
  ctx: McpRequestContext,
  extra: TExtra,
) => Promise<McpHandlerOutcome>;

export type McpHandlerMap<TExtra> = { readonly [M in HandledMethod]?: McpMethodHandler<TExtra> };

/** ServerCapabilities as advertised (legacy `initialize` result / modern `server/discover`). */
export interface McpServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  completions?: Record<string, unknown>;
  logging?: Record<string, unknown>;
  experimental?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface McpServerInfo {
  name: string;
  version: string;
  /** Sent from 2025-06-18 on (the 2025-03-26 Implementation had only name and version). */
  title?: string;
}

/** `'ok' | 'input_required' | 'rpc_error:<code>' | 'http_<status>'` */
export type McpOutcomeLabel = 'ok' | 'input_required' | RpcErrorStatus | `http_${number}`;

/** Emitted once per handled message, for metrics. Every label value is bounded. */
export interface McpObservation {
  era: Era;
  /** A supported revision, or `unknown`. */
  protocolVersion: string;
  /** A method some MCP revision defines, or `unknown`. */
  method: string;
  outcome: McpOutcomeLabel;
  /**
   * `tools/call` only: the tool ran and answered a result with `isError: true` (its outcome is
   * still `ok` for the protocol). Lets metrics count tool failures without per-message state.
   */
  toolError?: boolean;
  /**
   * `tools/call` only: the tool name the client sent (client input, not bounded: compare it with
   * the registry before using it as a label or attribute).
   */
  requestedTool?: string;
  durationMs: number;
  /**
   * The sampled trace the message's span is in ({@link McpMessageScope.traceId}), if any: metrics
   * may name it as an exemplar.
   */
  traceId?: string;
}

/** One message about to be served, as a tracer reads it (nothing of it has run yet). */
export interface McpMessageStart {
  /** A method some MCP revision defines, or `unknown` (also for a response or a broken message). */
  method: string;
  /** A request's JSON-RPC id (client input); undefined for anything else. */
  id: string | number | undefined;
  /** The request's or notification's params (client input): `_meta` carries trace context. */
  params: Record<string, unknown> | undefined;
  headers: McpHttpRequest['headers'];
}

/**
 * What runs around one message ({@link McpEndpointOptions.traceMessage}): `run` serves it (e.g.
 * inside a span, so that everything the handler does is a child of it), `end` is called once
 * with its observation. Neither may throw.
 */
export interface McpMessageScope {
  /** The trace of the message's span when it is sampled (exported); undefined otherwise. */
  readonly traceId?: string;
  run<T>(serve: () => Promise<T>): Promise<T>;
  end(observation: McpObservation): void;
}

export interface McpEndpointOptions<TExtra> {
  serverInfo: McpServerInfo;
  instructions?: string;
  /** What to advertise per era. A capability needs handlers for all of its methods. */
  capabilities: { legacy: McpServerCapabilities; modern: McpServerCapabilities };
  handlers: McpHandlerMap<TExtra>;
  /** Called exactly once for every unexpected failure (log it with the request id). Must not throw. */
  onInternalError: (error: unknown, ctx: McpRequestContext, extra: TExtra) => void;
  /** Called exactly once per `handle()` call. Must not throw. */
  observe?: (event: McpObservation) => void;
  /** Called once per `handle()` call, before the message is served (absent: nothing around it). */
  traceMessage?: (message: McpMessageStart) => McpMessageScope;
  /**
   * 2025 era: mint an `Mcp-Session-Id` carrying `clientInfo` at `initialize`, read it back on later
   * requests (unknown ids answer 404). Absent: no session ids at all.
   */
  sessionIds?: McpSessionIds;
  /** `server/discover` cache lifetime (its `cacheScope` is always `public`). Default 300 000 ms. */
  discoverTtlMs?: number;
  /**
   * Who a request comes from, as a stable key (e.g. the bearer token's id): a client's answer to a
   * server→client request is accepted only from the caller that owns the waiting call, and the
   * 2025 `logging/setLevel` level is remembered per caller. Default: everyone is one caller.
   */
  ownerOf?: (extra: TExtra) => string;
  /** How long a 2025 server→client request waits for the client's answer. Default 60 000 ms. */
  clientRequestTimeoutMs?: number;
  /**
   * 2026-07-28 `tools/call`: the tool's arguments marked `x-mcp-header` (see `paramHeadersOf`),
   * whose `Mcp-Param-*` headers must mirror the body (else 400 / -32020). Unknown tool: undefined.
   */
  paramHeadersOf?: (toolName: string) => readonly ParamHeader[] | undefined;
}
