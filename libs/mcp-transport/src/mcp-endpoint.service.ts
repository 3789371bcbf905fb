import { isJsonObject, unreachable } from '@app/common';
import { checkInputRequests } from './client-capability.gate.js';
import { acceptsEventStream, decodeHeaderValue, trimOws } from './http-headers.util.js';
import { normalizeClientString } from './client-string.util.js';
import {
  errorBody,
  parseJsonRpcMessage,
  preSerializedResultBody,
  resultBody,
} from './json-rpc.codec.js';
import type {
  Era,
  JsonRpcId,
  McpCacheHint,
  McpClientInfo,
  McpEndpointOptions,
  McpHandlerOutcome,
  McpHttpRequest,
  McpHttpResponse,
  McpMethodHandler,
  McpObservation,
  McpOutcomeLabel,
  McpRequestContext,
  McpResponseStream,
  McpServerCapabilities,
} from './mcp-endpoint.types.js';
import {
  CACHEABLE_METHODS,
  HANDLED_METHOD_CAPABILITY,
  HANDLED_METHODS,
  HEADER_MISMATCH,
  INPUT_REQUIRED_METHODS,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isLegacyProtocolVersion,
  isModernProtocolVersion,
  isSupportedProtocolVersion,
  KNOWN_METHOD_LABELS,
  LEGACY_DEFAULT_PROTOCOL_VERSION,
  LEGACY_LATEST_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  type LegacyProtocolVersion,
  LOGGING_LEVELS,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_FIELD,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  METHOD_NOT_FOUND,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  PARSE_ERROR,
  SUPPORTED_PROTOCOL_VERSIONS,
  UNSUPPORTED_PROTOCOL_VERSION,
} from './mcp-protocol.constants.js';
import { McpError } from './mcp.error.js';
import type { McpSessionIds } from './session-id.codec.js';
import { PendingClientRequests } from './pending-client-requests.js';
import { isLoggingLevel, RequestChannel, type LoggingLevel } from './request-channel.js';

/** A caller-supplied handler as served in one era. */
interface HandlerRoute<TExtra> {
  kind: 'handler';
  handler: McpMethodHandler<TExtra>;
  cacheable: boolean;
  allowsInputRequired: boolean;
}

/**
 * How one method is served in one era (built once per era in the constructor). Legacy `initialize`
 * is not a route: it is answered before the MCP-Protocol-Version header check.
 */
type LegacyRoute<TExtra> = { kind: 'ping' } | { kind: 'set-log-level' } | HandlerRoute<TExtra>;
type ModernRoute<TExtra> = { kind: 'discover' } | HandlerRoute<TExtra>;

/** A response plus the labels `observe` reports for it. */
interface Handled {
  response: McpHttpResponse;
  era: Era;
  protocolVersion: string;
  method: string;
  outcome: McpOutcomeLabel;
  /** A `tools/call` answered with an `isError` result (see {@link McpObservation.toolError}). */
  toolError?: boolean;
  /** The handler's channel, when it ran: if it opened a stream, the response goes there. */
  channel?: RequestChannel;
}

/** What one POST's handler needs from its HTTP exchange besides the message. */
interface Exchange {
  /** The caller's key ({@link McpEndpointOptions.ownerOf}). */
  owner: string;
  /** Makes the HTTP response an SSE stream (called at the first message before the result). */
  open: (stream: McpResponseStream) => void;
}

const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};
const DEFAULT_CLIENT_REQUEST_TIMEOUT_MS = 60_000;
/** Callers whose 2025 log level is remembered (oldest forgotten first). */
const MAX_REMEMBERED_LOG_LEVELS = 10_000;

/** The header whose value must equal a body field, per method (SEP-2243 `Mcp-Name`). */
const MCP_NAME_SOURCE: ReadonlyMap<string, 'name' | 'uri'> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
]);

const DEFAULT_CACHE_HINT: McpCacheHint = { ttlMs: 0, cacheScope: 'private' };
const DEFAULT_DISCOVER_TTL_MS = 300_000;
const EMPTY_RESULT_JSON = '{}';
const UNKNOWN = 'unknown';
/** Client-supplied text echoed in error messages is cut to this many characters. */
const ECHO_LIMIT = 128;
const LOGGING_LEVEL_LIST = [...LOGGING_LEVELS].join(', ');

const HEADER_PROTOCOL_VERSION = 'mcp-protocol-version';
const HEADER_METHOD = 'mcp-method';
const HEADER_NAME = 'mcp-name';
const HEADER_SESSION_ID = 'mcp-session-id';

function echo(value: string): string {
  return value.length <= ECHO_LIMIT ? value : `${value.slice(0, ECHO_LIMIT)}…`;
}

function jsonResponse(status: number, body: string): McpHttpResponse {
  return { status, headers: { 'content-type': 'application/json' }, body };
}

function accepted(): McpHttpResponse {
  return { status: 202, headers: {} };
}

function methodLabel(method: string): string {
  return KNOWN_METHOD_LABELS.has(method) ? method : UNKNOWN;
}

function versionLabel(version: string | undefined): string {
  return version !== undefined && isSupportedProtocolVersion(version) ? version : UNKNOWN;
}

/**
 * `_meta` clientInfo as the handlers (and the audit trail, history and logs behind them) see it:
 * the name and version normalised at this edge ({@link normalizeClientString}), nothing else the
 * client put there; absent when there is no usable name.
 */
function clientInfoOf(value: unknown): McpClientInfo | undefined {
  if (!isJsonObject(value) || typeof value.name !== 'string') return undefined;
  const name = normalizeClientString(value.name);
  if (name === '') return undefined;
  return typeof value.version === 'string'
    ? { name, version: normalizeClientString(value.version) }
    : { name };
}

/** Exhaustiveness guard for switches over closed unions. */
function isCacheHint(value: unknown): value is McpCacheHint {
  if (!isJsonObject(value)) return false;
  const { ttlMs, cacheScope } = value;
  return (
    typeof ttlMs === 'number' &&
    Number.isSafeInteger(ttlMs) &&
    ttlMs >= 0 &&
    (cacheScope === 'public' || cacheScope === 'private')
  );
}

/**
 * Era by the body first (`_meta` with a protocol version is 2026-07-28), then headers; never by
 * session or version header alone, which an intermediary may add or strip.
 */
function classifyEra(
  method: string,
  params: Record<string, unknown> | undefined,
  headers: McpHttpRequest['headers'],
): Era {
  const meta = params?.[META_FIELD];
  const hasModernMeta = isJsonObject(meta) && meta[META_PROTOCOL_VERSION] !== undefined;
  if (method === 'initialize' && !hasModernMeta) return 'legacy';
  if (hasModernMeta) return 'modern';
  return eraFromHeaders(headers);
}

function eraFromHeaders(headers: McpHttpRequest['headers']): Era {
  const version = headers[HEADER_PROTOCOL_VERSION];
  if (version !== undefined && isModernProtocolVersion(trimOws(version))) return 'modern';
  return headers[HEADER_METHOD] !== undefined ? 'modern' : 'legacy';
}

/** The legacy revision named by the header; absent means 2025-03-26; `null` means unsupported. */
function legacyVersionFromHeader(headers: McpHttpRequest['headers']): LegacyProtocolVersion | null {
  const raw = headers[HEADER_PROTOCOL_VERSION];
  if (raw === undefined) return LEGACY_DEFAULT_PROTOCOL_VERSION;
  const version = trimOws(raw);
  return isLegacyProtocolVersion(version) ? version : null;
}

/**
 * The transport-independent MCP JSON-RPC core for `POST /mcp`: both eras on one endpoint, stateless
 * (a 2025 session id, when configured, is signed and carries only the client's name). A
 * response is JSON, or an SSE stream once a handler sends something before its result (progress,
 * log messages, 2025 requests to the client; see RequestChannel). The controller authenticates,
 * checks Origin/size/Accept, then
 * calls {@link handle} and writes back what it returns.
 */
export class McpEndpointService<TExtra> {
  private readonly legacyRoutes: ReadonlyMap<string, LegacyRoute<TExtra>>;
  private readonly modernRoutes: ReadonlyMap<string, ModernRoute<TExtra>>;
  private readonly serverInfoMeta: Readonly<Record<string, unknown>>;
  private readonly discoverResultJson: string;
  /**
   * The rendered JSON of frozen handler results, per result object and rendering (era, cache
   * hint): a handler that returns the same frozen result again (`tools/list`, the same for every
   * caller) is serialised once, not on every request.
   */
  private readonly renderedResults = new WeakMap<object, Map<string, string>>();
  private readonly initializeResultJson: ReadonlyMap<LegacyProtocolVersion, string>;
  private readonly onInternalError: McpEndpointOptions<TExtra>['onInternalError'];
  private readonly observe: McpEndpointOptions<TExtra>['observe'];
  private readonly sessionIds: McpSessionIds | undefined;
  private readonly ownerOf: (extra: TExtra) => string;
  private readonly pendingClientRequests: PendingClientRequests;
  /**
   * 2025 `logging/setLevel`, per caller (and per `Mcp-Session-Id` when the client sends one), in
   * this replica's memory: the endpoint is otherwise stateless, so a level set on another replica
   * is unknown here and that replica sends no log message (as when no level was ever set).
   */
  private readonly legacyLogLevels = new Map<string, LoggingLevel>();

  constructor(options: McpEndpointOptions<TExtra>) {
    const { serverInfo, instructions, handlers } = options;
    if (!serverInfo.name || !serverInfo.version) {
      throw new Error('McpEndpointService: serverInfo needs a name and a version');
    }
    const discoverTtlMs = options.discoverTtlMs ?? DEFAULT_DISCOVER_TTL_MS;
    if (!Number.isSafeInteger(discoverTtlMs) || discoverTtlMs < 0) {
      throw new Error('McpEndpointService: discoverTtlMs must be an integer ≥ 0');
    }
    // Snapshot (JSON round trip): later mutation of the caller's objects changes nothing here.
    const legacyCaps = snapshot(options.capabilities.legacy);
    const modernCaps = snapshot(options.capabilities.modern);
    assertServable('legacy', legacyCaps, handlers);
    assertServable('modern', modernCaps, handlers);

    this.onInternalError = options.onInternalError;
    this.observe = options.observe;
    this.sessionIds = options.sessionIds;
    this.ownerOf = options.ownerOf ?? (() => '');
    this.pendingClientRequests = new PendingClientRequests(
      options.clientRequestTimeoutMs ?? DEFAULT_CLIENT_REQUEST_TIMEOUT_MS,
    );

    const fullInfo: Record<string, unknown> = {
      name: serverInfo.name,
      version: serverInfo.version,
    };
    if (serverInfo.title !== undefined) fullInfo.title = serverInfo.title;
    this.serverInfoMeta = { [META_SERVER_INFO]: fullInfo };

    const discover: Record<string, unknown> = {
      resultType: 'complete',
      supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
      capabilities: modernCaps,
    };
    if (instructions !== undefined) discover.instructions = instructions;
    discover.ttlMs = discoverTtlMs;
    discover.cacheScope = 'public';
    discover[META_FIELD] = this.serverInfoMeta;
    this.discoverResultJson = JSON.stringify(discover);

    const initialize = new Map<LegacyProtocolVersion, string>();
    for (const version of LEGACY_PROTOCOL_VERSIONS) {
      // `title` joined Implementation in 2025-06-18; keep each revision's own shape.
      const info =
        version === '2025-03-26'
          ? { name: serverInfo.name, version: serverInfo.version }
          : fullInfo;
      const result: Record<string, unknown> = {
        protocolVersion: version,
        capabilities: legacyCaps,
        serverInfo: info,
      };
      if (instructions !== undefined) result.instructions = instructions;
      initialize.set(version, JSON.stringify(result));
    }
    this.initializeResultJson = initialize;

    const legacy = new Map<string, LegacyRoute<TExtra>>([
      ['ping', { kind: 'ping' }],
      ['logging/setLevel', { kind: 'set-log-level' }],
    ]);
    const modern = new Map<string, ModernRoute<TExtra>>([
      ['server/discover', { kind: 'discover' }],
    ]);
    for (const method of HANDLED_METHODS) {
      const handler = handlers[method];
      if (handler === undefined) continue;
      const route: HandlerRoute<TExtra> = {
        kind: 'handler',
        handler,
        cacheable: CACHEABLE_METHODS.has(method),
        allowsInputRequired: INPUT_REQUIRED_METHODS.has(method),
      };
      const capability = HANDLED_METHOD_CAPABILITY[method];
      if (legacyCaps[capability] !== undefined) legacy.set(method, route);
      if (modernCaps[capability] !== undefined) modern.set(method, route);
    }
    this.legacyRoutes = legacy;
    this.modernRoutes = modern;
  }

  /**
   * Answers one authenticated POST. Every protocol problem becomes a response (JSON-RPC error or
   * transport envelope); the promise rejects only if `onInternalError`/`observe` throw.
   */
  async handle(request: McpHttpRequest, extra: TExtra): Promise<McpHttpResponse> {
    const started = performance.now();
    return new Promise<McpHttpResponse>((resolve, reject) => {
      let answered = false;
      const exchange: Exchange = {
        owner: this.ownerOf(extra),
        open: (stream) => {
          answered = true;
          resolve({ status: 200, headers: { ...SSE_HEADERS }, stream });
        },
      };
      this.process(request, extra, exchange)
        .then((handled) => {
          // A streamed answer ends with the final message on its stream (whatever its HTTP status
          // would have been: 200 is already sent).
          if (handled.channel?.streaming === true)
            handled.channel.finish(handled.response.body ?? '');
          this.observe?.({
            era: handled.era,
            protocolVersion: handled.protocolVersion,
            method: handled.method,
            outcome: handled.outcome,
            toolError: handled.toolError === true,
            durationMs: performance.now() - started,
          } satisfies McpObservation);
          if (!answered) {
            answered = true;
            resolve(handled.response);
          }
        })
        .catch((error: unknown) => {
          if (!answered) reject(error);
        });
    });
  }

  private async process(
    request: McpHttpRequest,
    extra: TExtra,
    exchange: Exchange,
  ): Promise<Handled> {
    const { headers } = request;
    const message = parseJsonRpcMessage(request.body);
    switch (message.kind) {
      case 'invalid': {
        const era = eraFromHeaders(headers);
        return rpcError(
          era,
          this.headerVersionLabel(era, headers),
          UNKNOWN,
          400,
          message.id,
          message.code,
          message.message,
        );
      }
      case 'response': {
        const era = eraFromHeaders(headers);
        if (era === 'modern') {
          const reason = 'Invalid Request: clients must not send JSON-RPC responses in 2026-07-28';
          return rpcError(
            era,
            this.headerVersionLabel(era, headers),
            UNKNOWN,
            400,
            message.id,
            INVALID_REQUEST,
            reason,
          );
        }
        return this.settleClientRequest(message, headers, exchange);
      }
      case 'notification': {
        const era = classifyEra(message.method, message.params, headers);
        const label = methodLabel(message.method);
        if (era === 'legacy') return this.acceptLegacy(headers, label);
        return {
          response: accepted(),
          era,
          protocolVersion: this.headerVersionLabel(era, headers),
          method: label,
          outcome: 'ok',
        };
      }
      case 'request': {
        const { id, method, params } = message;
        return classifyEra(method, params, headers) === 'legacy'
          ? this.serveLegacy(id, method, params, headers, request.requestId, extra, exchange)
          : this.serveModern(id, method, params, headers, request.requestId, extra, exchange);
      }
      default:
        return unreachable(message);
    }
  }

  // ---------------------------------------------------------------- legacy (2025 revisions)

  private acceptLegacy(headers: McpHttpRequest['headers'], method: string): Handled {
    const version = legacyVersionFromHeader(headers);
    if (version === null) return this.refuseLegacyVersion(headers, method);
    if (this.legacySession(headers) === null) return unknownSession(version, method);
    return { response: accepted(), era: 'legacy', protocolVersion: version, method, outcome: 'ok' };
  }

  /**
   * A client's JSON-RPC response (2025): the answer to a request this server sent on a response
   * stream. Accepted (202) when a call of the same caller waits for it; otherwise 400, so the
   * client learns its answer went nowhere (e.g. to another replica; see PendingClientRequests).
   */
  private settleClientRequest(
    message: { id: JsonRpcId | null; result?: unknown; error?: unknown },
    headers: McpHttpRequest['headers'],
    exchange: Exchange,
  ): Handled {
    const version = legacyVersionFromHeader(headers);
    if (version === null) return this.refuseLegacyVersion(headers, UNKNOWN);
    const verdict = this.pendingClientRequests.settle(
      exchange.owner,
      message.id,
      message.result,
      message.error,
    );
    if (verdict === 'settled') {
      return {
        response: accepted(),
        era: 'legacy',
        protocolVersion: version,
        method: UNKNOWN,
        outcome: 'ok',
      };
    }
    const reason = 'Invalid Request: no request of this server is waiting for this response';
    return rpcError('legacy', version, UNKNOWN, 400, message.id, INVALID_REQUEST, reason);
  }

  private async serveLegacy(
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown> | undefined,
    headers: McpHttpRequest['headers'],
    requestId: string,
    extra: TExtra,
    exchange: Exchange,
  ): Promise<Handled> {
    const label = methodLabel(method);
    if (method === 'initialize') return this.initialize(id, params, label);

    const version = legacyVersionFromHeader(headers);
    if (version === null) return this.refuseLegacyVersion(headers, label);
    const clientInfo = this.legacySession(headers);
    if (clientInfo === null) return unknownSession(version, label);

    const route = this.legacyRoutes.get(method);
    if (route === undefined) {
      return rpcError(
        'legacy',
        version,
        label,
        200,
        id,
        METHOD_NOT_FOUND,
        `Method not found: ${echo(method)}`,
      );
    }
    switch (route.kind) {
      case 'ping':
        return ok('legacy', version, label, preSerializedResultBody(id, EMPTY_RESULT_JSON));
      case 'set-log-level': {
        const level = params?.level;
        if (!isLoggingLevel(level)) {
          const reason = `Invalid params: level must be one of ${LOGGING_LEVEL_LIST}`;
          return rpcError('legacy', version, label, 200, id, INVALID_PARAMS, reason);
        }
        this.rememberLogLevel(legacyCallerKey(exchange.owner, headers), level);
        return ok('legacy', version, label, preSerializedResultBody(id, EMPTY_RESULT_JSON));
      }
      case 'handler': {
        const channel = this.channelFor(
          'legacy',
          params,
          headers,
          exchange,
          this.legacyLogLevels.get(legacyCallerKey(exchange.owner, headers)),
        );
        const ctx: McpRequestContext = {
          era: 'legacy',
          protocolVersion: version,
          method,
          jsonRpcId: id,
          clientInfo,
          clientCapabilities: {},
          meta: {},
          channel,
        };
        return this.runHandler(route, params, ctx, label, requestId, extra, channel);
      }
      default:
        return unreachable(route);
    }
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
    const requested = params?.protocolVersion;
    if (typeof requested !== 'string') {
      const reason = 'Invalid params: protocolVersion must be a string';
      return rpcError('legacy', UNKNOWN, label, 200, id, INVALID_PARAMS, reason);
    }
    if (params?.capabilities !== undefined && !isJsonObject(params.capabilities)) {
      const reason = 'Invalid params: capabilities must be an object';
      return rpcError('legacy', UNKNOWN, label, 200, id, INVALID_PARAMS, reason);
    }
    const version = isLegacyProtocolVersion(requested) ? requested : LEGACY_LATEST_PROTOCOL_VERSION;
    const resultJson = this.initializeResultJson.get(version) ?? EMPTY_RESULT_JSON;
    const handled = ok('legacy', version, label, preSerializedResultBody(id, resultJson));
    const clientInfo = clientInfoOf(params?.clientInfo);
    if (this.sessionIds !== undefined && clientInfo !== undefined) {
      handled.response.headers[HEADER_SESSION_ID] = this.sessionIds.issue(clientInfo);
    }
    return handled;
  }

  /**
   * The `clientInfo` the request's `Mcp-Session-Id` carries; `undefined` when it sends none (or
   * session ids are off); `null` when it names a session this server did not issue (tampered,
   * foreign, or signed with a secret no longer configured).
   */
  private legacySession(headers: McpHttpRequest['headers']): McpClientInfo | undefined | null {
    const sessionId = headers[HEADER_SESSION_ID];
    if (sessionId === undefined || this.sessionIds === undefined) return undefined;
    return this.sessionIds.read(trimOws(sessionId)) ?? null;
  }

  /**
   * A transport refusal: plain HTTP with the platform API's error envelope, not a JSON-RPC error,
   * because the request never reached the JSON-RPC layer of a version this server speaks.
   */
  private refuseLegacyVersion(headers: McpHttpRequest['headers'], method: string): Handled {
    const requested = trimOws(headers[HEADER_PROTOCOL_VERSION] ?? '');
    const body = JSON.stringify({
      error: {
        code: 'UNSUPPORTED_PROTOCOL_VERSION',
        message: `Unsupported MCP-Protocol-Version: ${echo(requested)}`,
        details: { supported: SUPPORTED_PROTOCOL_VERSIONS, requested },
      },
    });
    return {
      response: jsonResponse(400, body),
      era: 'legacy',
      protocolVersion: UNKNOWN,
      method,
      outcome: 'http_400',
    };
  }

  // ---------------------------------------------------------------- modern (2026-07-28)

  private async serveModern(
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown> | undefined,
    headers: McpHttpRequest['headers'],
    requestId: string,
    extra: TExtra,
    exchange: Exchange,
  ): Promise<Handled> {
    const label = methodLabel(method);

    // a. required _meta keys (400 / -32602)
    const meta = params?.[META_FIELD];
    if (!isJsonObject(meta)) {
      return rpcError(
        'modern',
        UNKNOWN,
        label,
        400,
        id,
        INVALID_PARAMS,
        'Invalid params: params._meta is required',
      );
    }
    const version = meta[META_PROTOCOL_VERSION];
    if (typeof version !== 'string') {
      const reason = `Invalid params: _meta["${META_PROTOCOL_VERSION}"] is required and must be a string`;
      return rpcError('modern', UNKNOWN, label, 400, id, INVALID_PARAMS, reason);
    }
    const versionTag = versionLabel(version);
    const clientCapabilities = meta[META_CLIENT_CAPABILITIES];
    if (!isJsonObject(clientCapabilities)) {
      const reason = `Invalid params: _meta["${META_CLIENT_CAPABILITIES}"] is required and must be an object`;
      return rpcError('modern', versionTag, label, 400, id, INVALID_PARAMS, reason);
    }
    const rawLogLevel = meta[META_LOG_LEVEL];
    const logLevel = isLoggingLevel(rawLogLevel) ? rawLogLevel : undefined;
    if (rawLogLevel !== undefined && logLevel === undefined) {
      const reason = `Invalid params: _meta["${META_LOG_LEVEL}"] must be one of ${LOGGING_LEVEL_LIST}`;
      return rpcError('modern', versionTag, label, 400, id, INVALID_PARAMS, reason);
    }

    // b. header/body agreement (400 / -32020); wins over an unsupported version
    const mismatch = headerMismatch(method, params, version, headers);
    if (mismatch !== undefined) {
      return rpcError(
        'modern',
        versionTag,
        label,
        400,
        id,
        HEADER_MISMATCH,
        `Header mismatch: ${mismatch}`,
      );
    }

    // c. version (400 / -32022). Per-request _meta exists only from 2026-07-28 on; a legacy revision
    //    is spoken through `initialize`, so it is refused here too (data.supported says which exist).
    if (!isModernProtocolVersion(version)) {
      const data = { supported: SUPPORTED_PROTOCOL_VERSIONS, requested: version };
      return rpcError(
        'modern',
        versionTag,
        label,
        400,
        id,
        UNSUPPORTED_PROTOCOL_VERSION,
        'Unsupported protocol version',
        data,
      );
    }

    // d. method served in this era (404 / -32601)
    const route = this.modernRoutes.get(method);
    if (route === undefined) {
      return rpcError(
        'modern',
        version,
        label,
        404,
        id,
        METHOD_NOT_FOUND,
        `Method not found: ${echo(method)}`,
      );
    }

    // e. dispatch
    switch (route.kind) {
      case 'discover':
        return ok('modern', version, label, preSerializedResultBody(id, this.discoverResultJson));
      case 'handler': {
        const rawInfo = meta[META_CLIENT_INFO];
        const channel = this.channelFor('modern', params, headers, exchange, logLevel);
        const ctx: McpRequestContext = {
          era: 'modern',
          protocolVersion: version,
          method,
          jsonRpcId: id,
          clientInfo: clientInfoOf(rawInfo),
          clientCapabilities,
          meta,
          channel,
        };
        return this.runHandler(route, params, ctx, label, requestId, extra, channel);
      }
      default:
        return unreachable(route);
    }
  }

  // ---------------------------------------------------------------- handlers (both eras)

  /**
   * The request's channel: it streams only if the client accepts SSE; progress needs the request's
   * `_meta.progressToken` (both eras), log messages a level (see {@link McpRequestChannel.log}).
   */
  private channelFor(
    era: Era,
    params: Record<string, unknown> | undefined,
    headers: McpHttpRequest['headers'],
    exchange: Exchange,
    logLevel: LoggingLevel | undefined,
  ): RequestChannel {
    const meta = params?.[META_FIELD];
    const token = isJsonObject(meta) ? meta.progressToken : undefined;
    return new RequestChannel({
      era,
      canStream: acceptsEventStream(headers.accept),
      progressToken:
        typeof token === 'string' || (typeof token === 'number' && Number.isSafeInteger(token))
          ? token
          : undefined,
      logLevel,
      owner: exchange.owner,
      pending: this.pendingClientRequests,
      open: exchange.open,
    });
  }

  private rememberLogLevel(key: string, level: LoggingLevel): void {
    this.legacyLogLevels.delete(key);
    this.legacyLogLevels.set(key, level);
    if (this.legacyLogLevels.size > MAX_REMEMBERED_LOG_LEVELS) {
      const oldest = this.legacyLogLevels.keys().next().value;
      if (oldest !== undefined) this.legacyLogLevels.delete(oldest);
    }
  }

  private async runHandler(
    route: HandlerRoute<TExtra>,
    params: Record<string, unknown> | undefined,
    ctx: McpRequestContext,
    label: string,
    requestId: string,
    extra: TExtra,
    channel: RequestChannel,
  ): Promise<Handled> {
    const handled = await this.runHandlerOnce(route, params, ctx, label, requestId, extra);
    handled.channel = channel;
    return handled;
  }

  private async runHandlerOnce(
    route: HandlerRoute<TExtra>,
    params: Record<string, unknown> | undefined,
    ctx: McpRequestContext,
    label: string,
    requestId: string,
    extra: TExtra,
  ): Promise<Handled> {
    let outcome: McpHandlerOutcome;
    try {
      outcome = await route.handler(params ?? {}, ctx, extra);
    } catch (error) {
      return this.renderThrown(error, ctx, label, requestId, extra);
    }
    try {
      const handled =
        ctx.era === 'legacy'
          ? this.renderLegacyOutcome(outcome, ctx, label)
          : this.renderModernOutcome(outcome, route, ctx, label);
      if (handled.outcome === 'ok' && isToolErrorResult(ctx.method, outcome))
        handled.toolError = true;
      return handled;
    } catch (error) {
      // e.g. a result JSON.stringify cannot serialise (BigInt, cycle), or a handler contract breach.
      return this.internalError(error, ctx, label, requestId, extra);
    }
  }

  /**
   * `render()`, or for a frozen result (it cannot change any more) the JSON rendered the first time
   * this result object was rendered this way.
   */
  private renderOnce(result: object, rendering: string, render: () => string): string {
    if (!Object.isFrozen(result)) return render();
    let byRendering = this.renderedResults.get(result);
    if (byRendering === undefined) {
      byRendering = new Map();
      this.renderedResults.set(result, byRendering);
    }
    let json = byRendering.get(rendering);
    if (json === undefined) {
      json = render();
      byRendering.set(rendering, json);
    }
    return json;
  }

  private renderLegacyOutcome(
    outcome: McpHandlerOutcome,
    ctx: McpRequestContext,
    label: string,
  ): Handled {
    if (outcome.kind !== 'complete') {
      throw new Error(
        `${ctx.method} returned input_required on a 2025 revision; only 2026-07-28 has it`,
      );
    }
    const result = requireResultObject(outcome.result, ctx.method);
    const json = this.renderOnce(result, 'legacy', () =>
      JSON.stringify(withoutModernFields(result)),
    );
    return ok('legacy', ctx.protocolVersion, label, preSerializedResultBody(ctx.jsonRpcId, json));
  }

  private renderModernOutcome(
    outcome: McpHandlerOutcome,
    route: HandlerRoute<TExtra>,
    ctx: McpRequestContext,
    label: string,
  ): Handled {
    if (outcome.kind === 'complete') {
      const result = requireResultObject(outcome.result, ctx.method);
      const hint = route.cacheable ? (outcome.cache ?? DEFAULT_CACHE_HINT) : undefined;
      if (hint !== undefined && !isCacheHint(hint))
        throw new Error(`${ctx.method} returned an invalid cache hint`);
      const rendering = hint === undefined ? 'modern' : `modern:${hint.ttlMs}:${hint.cacheScope}`;
      const json = this.renderOnce(result, rendering, () => {
        const body: Record<string, unknown> = { ...result, resultType: 'complete' };
        if (hint !== undefined) {
          body.ttlMs = hint.ttlMs;
          body.cacheScope = hint.cacheScope;
        }
        body[META_FIELD] = isJsonObject(result[META_FIELD])
          ? { ...result[META_FIELD], ...this.serverInfoMeta }
          : this.serverInfoMeta;
        return JSON.stringify(body);
      });
      return ok('modern', ctx.protocolVersion, label, preSerializedResultBody(ctx.jsonRpcId, json));
    }

    if (!route.allowsInputRequired) {
      throw new Error(
        `${ctx.method} returned input_required; only tools/call, resources/read and prompts/get may`,
      );
    }
    const { inputRequests, requestState } = outcome;
    if (inputRequests !== undefined && !isJsonObject(inputRequests)) {
      throw new Error(`${ctx.method}: inputRequests must be an object`);
    }
    if (requestState !== undefined && typeof requestState !== 'string') {
      throw new Error(`${ctx.method}: requestState must be a string`);
    }
    const hasInputRequests = inputRequests !== undefined && Object.keys(inputRequests).length > 0;
    if (!hasInputRequests && requestState === undefined) {
      throw new Error(`${ctx.method}: input_required needs inputRequests or requestState`);
    }
    const body: Record<string, unknown> = { resultType: 'input_required' };
    if (hasInputRequests) {
      const verdict = checkInputRequests(inputRequests, ctx.clientCapabilities);
      switch (verdict.kind) {
        case 'invalid':
          throw new Error(`${ctx.method}: ${verdict.reason}`);
        case 'missing': {
          const names = Object.keys(verdict.requiredCapabilities).join(', ');
          return rpcError(
            'modern',
            ctx.protocolVersion,
            label,
            400,
            ctx.jsonRpcId,
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            `Missing required client capability: ${names}`,
            { requiredCapabilities: verdict.requiredCapabilities },
          );
        }
        case 'ok':
          body.inputRequests = inputRequests;
      }
    }
    if (requestState !== undefined) body.requestState = requestState;
    body[META_FIELD] = this.serverInfoMeta;
    return {
      response: jsonResponse(200, resultBody(ctx.jsonRpcId, body)),
      era: 'modern',
      protocolVersion: ctx.protocolVersion,
      method: label,
      outcome: 'input_required',
    };
  }

  private renderThrown(
    error: unknown,
    ctx: McpRequestContext,
    label: string,
    requestId: string,
    extra: TExtra,
  ): Handled {
    if (!(error instanceof McpError))
      return this.internalError(error, ctx, label, requestId, extra);
    const code = error.codeFor(ctx.era);
    let body: string;
    try {
      body = errorBody(ctx.jsonRpcId, code, error.message, error.data);
    } catch (serializationError) {
      return this.internalError(serializationError, ctx, label, requestId, extra);
    }
    return {
      response: jsonResponse(statusForThrownCode(ctx.era, code), body),
      era: ctx.era,
      protocolVersion: ctx.protocolVersion,
      method: label,
      outcome: `rpc_error:${code}`,
    };
  }

  /** Sanitised -32603: the caller learns only the HTTP request id; the log gets the real error. */
  private internalError(
    error: unknown,
    ctx: McpRequestContext,
    label: string,
    requestId: string,
    extra: TExtra,
  ): Handled {
    this.onInternalError(error, ctx, extra);
    return rpcError(
      ctx.era,
      ctx.protocolVersion,
      label,
      200,
      ctx.jsonRpcId,
      INTERNAL_ERROR,
      'Internal error',
      { requestId },
    );
  }

  private headerVersionLabel(era: Era, headers: McpHttpRequest['headers']): string {
    const raw = headers[HEADER_PROTOCOL_VERSION];
    if (raw === undefined) return era === 'legacy' ? LEGACY_DEFAULT_PROTOCOL_VERSION : UNKNOWN;
    return versionLabel(trimOws(raw));
  }
}

/**
 * 404 for a session id this server never issued (or no longer can verify): the transport spec's one
 * signal that a session is gone, after which the client starts over with `initialize`, which mints a
 * valid id. Serving the request as if no id had been sent would leave that client unattributed for
 * good; a 400 or a 500 would tell it nothing it can act on.
 */
function unknownSession(protocolVersion: string, method: string): Handled {
  const body = JSON.stringify({
    error: {
      code: 'SESSION_NOT_FOUND',
      message:
        'Unknown Mcp-Session-Id: this server did not issue it or no longer accepts it; send initialize again without a session id',
    },
  });
  return {
    response: jsonResponse(404, body),
    era: 'legacy',
    protocolVersion,
    method,
    outcome: 'http_404',
  };
}

function ok(era: Era, protocolVersion: string, method: string, body: string): Handled {
  return { response: jsonResponse(200, body), era, protocolVersion, method, outcome: 'ok' };
}

function rpcError(
  era: Era,
  protocolVersion: string,
  method: string,
  status: number,
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
): Handled {
  return {
    response: jsonResponse(status, errorBody(id, code, message, data)),
    era,
    protocolVersion,
    method,
    outcome: `rpc_error:${code}`,
  };
}

/**
 * HTTP status for an error a handler threw. Framing errors are 400 in both eras. Modern: -32601 is
 * 404 and the 2026 header/capability/version codes are 400; every other JSON-RPC error is 200 (the
 * request was understood; the answer is the error).
 */
function statusForThrownCode(era: Era, code: number): number {
  if (code === PARSE_ERROR || code === INVALID_REQUEST) return 400;
  if (era === 'legacy') return 200;
  if (code === METHOD_NOT_FOUND) return 404;
  if (
    code === HEADER_MISMATCH ||
    code === MISSING_REQUIRED_CLIENT_CAPABILITY ||
    code === UNSUPPORTED_PROTOCOL_VERSION
  ) {
    return 400;
  }
  return 200;
}

/**
 * SEP-2243 standard headers against the body: returns what disagrees, or undefined. Values are
 * compared case-sensitively after trimming surrounding whitespace; `Mcp-Name` is also
 * base64-sentinel decoded. `Mcp-Param-*` headers depend on tool schemas and are not checked here.
 */
function headerMismatch(
  method: string,
  params: Record<string, unknown> | undefined,
  version: string,
  headers: McpHttpRequest['headers'],
): string | undefined {
  const versionHeader = headers[HEADER_PROTOCOL_VERSION];
  if (versionHeader === undefined) return 'MCP-Protocol-Version header is required';
  const headerVersion = trimOws(versionHeader);
  if (headerVersion !== version) {
    return `MCP-Protocol-Version header value '${echo(headerVersion)}' does not match body value '${echo(version)}'`;
  }

  const methodHeader = headers[HEADER_METHOD];
  if (methodHeader === undefined) return 'Mcp-Method header is required';
  const headerMethod = trimOws(methodHeader);
  if (headerMethod !== method) {
    return `Mcp-Method header value '${echo(headerMethod)}' does not match body value '${echo(method)}'`;
  }

  const nameField = MCP_NAME_SOURCE.get(method);
  if (nameField === undefined) return undefined;
  const bodyValue = params?.[nameField];
  const nameHeader = headers[HEADER_NAME];
  if (nameHeader === undefined) {
    // No body value either: nothing to mirror; the handler rejects the params (-32602).
    return typeof bodyValue === 'string' ? `Mcp-Name header is required for ${method}` : undefined;
  }
  const headerName = decodeHeaderValue(nameHeader);
  if (headerName === null)
    return 'Mcp-Name header value is malformed (invalid characters or base64)';
  if (headerName !== bodyValue) {
    const shown = typeof bodyValue === 'string' ? echo(bodyValue) : '(absent)';
    return `Mcp-Name header value '${echo(headerName)}' does not match body value '${shown}'`;
  }
  return undefined;
}

/** The key of a 2025 caller's remembered log level: the caller, and its session when it sent one. */
function legacyCallerKey(owner: string, headers: McpHttpRequest['headers']): string {
  return `${owner}\n${headers['mcp-session-id'] ?? ''}`;
}

/** A completed `tools/call` whose result says `isError: true` (the tool ran and failed). */
function isToolErrorResult(method: string, outcome: McpHandlerOutcome): boolean {
  return (
    method === 'tools/call' &&
    outcome.kind === 'complete' &&
    isJsonObject(outcome.result) &&
    outcome.result.isError === true
  );
}

function requireResultObject(result: unknown, method: string): Record<string, unknown> {
  if (!isJsonObject(result)) throw new Error(`${method} returned a result that is not an object`);
  return result;
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

function snapshot(capabilities: McpServerCapabilities): Record<string, unknown> {
  const copy: unknown = JSON.parse(JSON.stringify(capabilities));
  if (!isJsonObject(copy)) throw new Error('McpEndpointService: capabilities must be objects');
  return copy;
}

/**
 * Boot-time guard: every advertised capability is fully served, and nothing is advertised that this
 * stateless transport (no stream outlives its request) cannot honour (list-changed notifications, resource subscriptions:
 * there is no `subscriptions/listen` and no legacy GET stream).
 */
function assertServable<TExtra>(
  era: Era,
  capabilities: Record<string, unknown>,
  handlers: McpEndpointOptions<TExtra>['handlers'],
): void {
  for (const method of HANDLED_METHODS) {
    const capability = HANDLED_METHOD_CAPABILITY[method];
    if (capabilities[capability] !== undefined && handlers[method] === undefined) {
      throw new Error(
        `McpEndpointService: ${era} capability '${capability}' is advertised but ${method} has no handler`,
      );
    }
  }
  for (const capability of ['tools', 'prompts', 'resources']) {
    const advertised = capabilities[capability];
    if (!isJsonObject(advertised)) continue;
    if (advertised.listChanged === true || advertised.subscribe === true) {
      throw new Error(
        `McpEndpointService: ${era} capability '${capability}' advertises listChanged/subscribe, which this transport cannot serve`,
      );
    }
  }
}
