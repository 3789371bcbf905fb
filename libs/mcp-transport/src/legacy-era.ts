import { isJsonObject, unreachable } from '@app/common';
import { trimOws } from './http-headers.util.js';
import type {
  JsonRpcId,
  McpHandlerOutcome,
  McpHttpRequest,
  McpRequestContext,
} from './mcp-endpoint.types.js';
import {
  INVALID_PARAMS,
  INVALID_REQUEST,
  isLegacyProtocolVersion,
  LEGACY_DEFAULT_PROTOCOL_VERSION,
  LEGACY_LATEST_PROTOCOL_VERSION,
  type LegacyProtocolVersion,
  META_FIELD,
  META_SERVER_INFO,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './mcp-protocol.constants.js';
import type { PendingClientRequests } from './pending-client-requests.js';
import { isLoggingLevel, type LoggingLevel, type RequestChannel } from './request-channel.js';
import type { McpSession, McpSessionIds } from './session-id.codec.js';

/** The 2025 revision with URL-mode elicitation: a session remembers that its client declared it. */
const URL_MODE_REVISION = '2025-11-25';
import {
  clientInfoOf,
  echo,
  EMPTY_RESULT_JSON,
  HEADER_PROTOCOL_VERSION,
  HEADER_SESSION_ID,
  LOGGING_LEVEL_LIST,
  methodLabel,
  methodNotFound,
  reply,
  UNKNOWN,
  type Handled,
  type ReplyTo,
  type RequestReplyTo,
} from './endpoint-reply.js';
import {
  requireResultObject,
  type EraRequest,
  type Exchange,
  type HandlerRoute,
  type HandlerRunner,
} from './handler-runner.js';

/**
 * How a method is served in the 2025 era. `initialize` is not a route: it is answered before the
 * MCP-Protocol-Version header check.
 */
export type LegacyRoute<TExtra> =
  { kind: 'ping' } | { kind: 'set-log-level' } | HandlerRoute<TExtra>;

/** Callers whose 2025 log level is remembered (oldest forgotten first). */
const MAX_REMEMBERED_LOG_LEVELS = 10_000;

export interface LegacyEraOptions<TExtra> {
  routes: ReadonlyMap<string, LegacyRoute<TExtra>>;
  /** The `initialize` result JSON per revision (each revision's own shape). */
  initializeResults: ReadonlyMap<LegacyProtocolVersion, string>;
  sessionIds: McpSessionIds | undefined;
  pending: PendingClientRequests;
  runner: HandlerRunner<TExtra>;
  /** Methods served only in the other era → what to send to reach them (see methodNotFound). */
  otherEraHints: ReadonlyMap<string, string>;
}

/**
 * The 2025 revisions (2025-03-26, 2025-06-18, 2025-11-25): a stateless `initialize` handshake,
 * then the revision named by the MCP-Protocol-Version header; a signed `Mcp-Session-Id`, when
 * configured, carries the client's `clientInfo` and whether it declared URL-mode elicitation.
 */
export class LegacyEra<TExtra> {
  /**
   * `logging/setLevel`, per caller (and per `Mcp-Session-Id` when the client sends one), in this
   * replica's memory: the endpoint is otherwise stateless, so a level set on another replica is
   * unknown here and that replica sends no log message (as when no level was ever set).
   */
  private readonly logLevels = new Map<string, LoggingLevel>();
  /**
   * Calls running on this replica, by caller and JSON-RPC id, so that the same caller's
   * `notifications/cancelled` can stop one (a cancellation that reaches another replica finds
   * nothing, and the call runs to its end, which the spec allows).
   */
  private readonly running = new Map<string, RequestChannel>();

  constructor(private readonly options: LegacyEraOptions<TExtra>) {}

  async serve(request: EraRequest<TExtra>): Promise<Handled> {
    const { id, method, params, headers, exchange } = request;
    const label = methodLabel(method);
    if (method === 'initialize') return this.initialize(id, params, label);

    const version = legacyVersionFromHeader(headers);
    if (version === null) return refuseVersion(headers, label);
    const session = this.session(headers);
    if (session === null) return unknownSession(version, label);
    const clientInfo = session?.clientInfo;

    const to: RequestReplyTo = { era: 'legacy', protocolVersion: version, method: label, id };
    const route = this.options.routes.get(method);
    if (route === undefined) return methodNotFound(to, method, this.options.otherEraHints);
    switch (route.kind) {
      case 'ping':
        return reply.result(to, EMPTY_RESULT_JSON);
      case 'set-log-level': {
        const level = params?.level;
        if (!isLoggingLevel(level)) {
          const reason = `Invalid params: level must be one of ${LOGGING_LEVEL_LIST}`;
          return reply.error(to, INVALID_PARAMS, reason);
        }
        this.rememberLogLevel(callerKey(exchange.owner, headers), level);
        return reply.result(to, EMPTY_RESULT_JSON);
      }
      case 'handler': {
        const { runner } = this.options;
        const logLevel = this.logLevels.get(callerKey(exchange.owner, headers));
        const { ctx, channel } = runner.contextFor('legacy', version, request, logLevel, {
          clientInfo,
          // What the session recorded at initialize: URL-mode elicitation on 2025-11-25, or nothing.
          clientCapabilities:
            session?.urlElicitation === true && version === URL_MODE_REVISION
              ? { elicitation: { url: {} } }
              : {},
          meta: {},
        });
        const key = runningKey(exchange.owner, headers, id);
        this.running.set(key, channel);
        try {
          return await runner.run({
            route,
            request,
            ctx,
            label,
            channel,
            render: (outcome, _route, c, l) => this.render(outcome, c, l),
          });
        } finally {
          if (this.running.get(key) === channel) this.running.delete(key);
        }
      }
      default:
        return unreachable(route);
    }
  }

  /**
   * A notification (202), once its revision and session id are acceptable. `notifications/cancelled`
   * from the caller that owns the named call stops it: its channel closes (the handler's signal
   * aborts, a stream ends, requests it waits on fail) and nothing more is sent for it.
   */
  acceptNotification(
    headers: McpHttpRequest['headers'],
    method: string,
    params: Record<string, unknown> | undefined,
    exchange: Exchange,
  ): Handled {
    const version = legacyVersionFromHeader(headers);
    if (version === null) return refuseVersion(headers, method);
    if (this.session(headers) === null) return unknownSession(version, method);
    const cancelled = params?.requestId;
    if (
      method === 'notifications/cancelled' &&
      (typeof cancelled === 'string' ||
        (typeof cancelled === 'number' && Number.isSafeInteger(cancelled)))
    ) {
      this.running.get(runningKey(exchange.owner, headers, cancelled))?.close();
    }
    return reply.accepted({ era: 'legacy', protocolVersion: version, method });
  }

  /**
   * A client's JSON-RPC response: the answer to a request this server sent on a response stream.
   * Accepted (202) when a call of the same caller waits for it; otherwise 400, so the client
   * learns its answer went nowhere (e.g. to another replica; see PendingClientRequests).
   */
  settleClientResponse(
    message: { id: JsonRpcId | null; result?: unknown; error?: unknown },
    headers: McpHttpRequest['headers'],
    exchange: Exchange,
  ): Handled {
    const version = legacyVersionFromHeader(headers);
    if (version === null) return refuseVersion(headers, UNKNOWN);
    const to: ReplyTo = {
      era: 'legacy',
      protocolVersion: version,
      method: UNKNOWN,
      id: message.id,
    };
    const verdict = this.options.pending.settle(
      exchange.owner,
      message.id,
      message.result,
      message.error,
    );
    if (verdict === 'settled') return reply.accepted(to);
    return reply.error(
      to,
      INVALID_REQUEST,
      'Invalid Request: no request of this server is waiting for this response',
    );
  }

  /**
   * Stateless handshake: negotiate, answer, remember nothing. With session ids configured, the
   * answer carries an `Mcp-Session-Id` holding the client's `clientInfo` (signed; see
   * `McpSessionIdCodec`), so later requests of this client can be attributed to it. A session id
   * sent with `initialize` is ignored: initialize starts a new session.
   */
  private initialize(
    id: JsonRpcId,
    params: Record<string, unknown> | undefined,
    label: string,
  ): Handled {
    const refused: RequestReplyTo = { era: 'legacy', protocolVersion: UNKNOWN, method: label, id };
    const requested = params?.protocolVersion;
    if (typeof requested !== 'string') {
      return reply.error(
        refused,
        INVALID_PARAMS,
        'Invalid params: protocolVersion must be a string',
      );
    }
    if (params?.capabilities !== undefined && !isJsonObject(params.capabilities)) {
      return reply.error(refused, INVALID_PARAMS, 'Invalid params: capabilities must be an object');
    }
    const version = isLegacyProtocolVersion(requested) ? requested : LEGACY_LATEST_PROTOCOL_VERSION;
    const resultJson = this.options.initializeResults.get(version) ?? EMPTY_RESULT_JSON;
    const handled = reply.result(
      { era: 'legacy', protocolVersion: version, method: label, id },
      resultJson,
    );
    const clientInfo = clientInfoOf(params?.clientInfo);
    const { sessionIds } = this.options;
    if (sessionIds !== undefined && clientInfo !== undefined) {
      const elicitation = isJsonObject(params?.capabilities)
        ? params.capabilities.elicitation
        : undefined;
      const urlElicitation =
        version === URL_MODE_REVISION && isJsonObject(elicitation) && elicitation.url !== undefined;
      handled.response.headers[HEADER_SESSION_ID] = sessionIds.issue(clientInfo, {
        urlElicitation,
      });
    }
    return handled;
  }

  /**
   * The `clientInfo` the request's `Mcp-Session-Id` carries; `undefined` when it sends none (or
   * session ids are off); `null` when it names a session this server did not issue (tampered,
   * foreign, or signed with a secret no longer configured).
   */
  private session(headers: McpHttpRequest['headers']): McpSession | undefined | null {
    const sessionId = headers[HEADER_SESSION_ID];
    const { sessionIds } = this.options;
    if (sessionId === undefined || sessionIds === undefined) return undefined;
    return sessionIds.readSession(trimOws(sessionId)) ?? null;
  }

  private render(outcome: McpHandlerOutcome, ctx: McpRequestContext, label: string): Handled {
    if (outcome.kind !== 'complete') {
      throw new Error(
        `${ctx.method} returned ${outcome.kind} on a 2025 revision; only 2026-07-28 has it`,
      );
    }
    const result = requireResultObject(outcome.result, ctx.method);
    const json = this.options.runner.renderOnce(result, 'legacy', () =>
      JSON.stringify(withoutModernFields(result)),
    );
    return reply.result(
      { era: 'legacy', protocolVersion: ctx.protocolVersion, method: label, id: ctx.jsonRpcId },
      json,
    );
  }

  private rememberLogLevel(key: string, level: LoggingLevel): void {
    this.logLevels.delete(key);
    this.logLevels.set(key, level);
    if (this.logLevels.size > MAX_REMEMBERED_LOG_LEVELS) {
      const oldest = this.logLevels.keys().next().value;
      if (oldest !== undefined) this.logLevels.delete(oldest);
    }
  }
}

/** The legacy revision named by the header; absent means 2025-03-26; `null` means unsupported. */
function legacyVersionFromHeader(headers: McpHttpRequest['headers']): LegacyProtocolVersion | null {
  const raw = headers[HEADER_PROTOCOL_VERSION];
  if (raw === undefined) return LEGACY_DEFAULT_PROTOCOL_VERSION;
  const version = trimOws(raw);
  return isLegacyProtocolVersion(version) ? version : null;
}

/** A revision this server does not speak: a transport refusal (400 with the API's envelope). */
function refuseVersion(headers: McpHttpRequest['headers'], method: string): Handled {
  const requested = trimOws(headers[HEADER_PROTOCOL_VERSION] ?? '');
  return reply.refusal({ era: 'legacy', protocolVersion: UNKNOWN, method }, 400, {
    code: 'UNSUPPORTED_PROTOCOL_VERSION',
    message: `Unsupported MCP-Protocol-Version: ${echo(requested)}`,
    details: { supported: SUPPORTED_PROTOCOL_VERSIONS, requested },
  });
}

/**
 * 404 for a session id this server never issued (or no longer can verify): the transport spec's one
 * signal that a session is gone, after which the client starts over with `initialize`, which mints a
 * valid id. Serving the request as if no id had been sent would leave that client unattributed for
 * good; a 400 or a 500 would tell it nothing it can act on.
 */
function unknownSession(protocolVersion: string, method: string): Handled {
  return reply.refusal({ era: 'legacy', protocolVersion, method }, 404, {
    code: 'SESSION_NOT_FOUND',
    message:
      'Unknown Mcp-Session-Id: this server did not issue it or no longer accepts it; send initialize again without a session id',
  });
}

/** The key of a caller's remembered log level: the caller, and its session when it sent one. */
function callerKey(owner: string, headers: McpHttpRequest['headers']): string {
  return `${owner}\n${headers[HEADER_SESSION_ID] ?? ''}`;
}

/** A running call: its caller and its JSON-RPC id (ids are unique per sender). */
function runningKey(owner: string, headers: McpHttpRequest['headers'], id: JsonRpcId): string {
  return `${callerKey(owner, headers)}\n${JSON.stringify(id)}`;
}

/** Legacy results keep their revision's shape: no 2026 fields, whoever set them. */
function withoutModernFields(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result[META_FIELD];
  const metaHasServerInfo = isJsonObject(meta) && meta[META_SERVER_INFO] !== undefined;
  if (
    result.resultType === undefined &&
    result.ttlMs === undefined &&
    result.cacheScope === undefined &&
    !metaHasServerInfo
  ) {
    return result;
  }
  const { resultType: _resultType, ttlMs: _ttlMs, cacheScope: _cacheScope, ...rest } = result;
  if (metaHasServerInfo) {
    const { [META_SERVER_INFO]: _serverInfo, ...metaRest } = meta;
    if (Object.keys(metaRest).length > 0) rest[META_FIELD] = metaRest;
    else delete rest[META_FIELD];
  }
  return rest;
}
