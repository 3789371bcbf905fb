import { isJsonObject, unreachable } from '@app/common';
import { trimOws } from './http-headers.util.js';
import { parseJsonRpcMessage, type JsonRpcMessage } from './json-rpc.codec.js';
import type {
  Era,
  McpEndpointOptions,
  McpHttpRequest,
  McpHttpResponse,
  McpMessageStart,
  McpObservation,
  McpServerCapabilities,
} from './mcp-endpoint.types.js';
import {
  advertises,
  CACHEABLE_METHODS,
  HANDLED_METHOD_CAPABILITY,
  HANDLED_METHODS,
  INPUT_REQUIRED_METHODS,
  INVALID_REQUEST,
  isFirstRevision,
  isModernProtocolVersion,
  LEGACY_DEFAULT_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  type LegacyProtocolVersion,
  META_CLIENT_CAPABILITIES,
  META_FIELD,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
  TASK_METHODS,
} from './mcp-protocol.constants.js';
import { PendingClientRequests } from './pending-client-requests.js';
import {
  HEADER_METHOD,
  HEADER_PROTOCOL_VERSION,
  headerVersionLabel,
  methodLabel,
  reply,
  UNKNOWN,
  type Handled,
} from './endpoint-reply.js';
import { HandlerRunner, type Exchange, type HandlerRoute } from './handler-runner.js';
import { LegacyEra, type LegacyRoute } from './legacy-era.js';
import { ModernEra, type ModernRoute } from './modern-era.js';

const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};
const DEFAULT_CLIENT_REQUEST_TIMEOUT_MS = 60_000;
const DEFAULT_DISCOVER_TTL_MS = 300_000;

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

/**
 * What each era says about a method only the other era serves. A 2026-07-28 request is recognised
 * by its `_meta` protocol version or its MCP-Protocol-Version / Mcp-Method headers; without them it
 * is a 2025 request, and `server/discover` there would otherwise be a bare "Method not found".
 */
function otherEraHints(
  legacy: ReadonlyMap<string, unknown>,
  modern: ReadonlyMap<string, unknown>,
): { toLegacy: ReadonlyMap<string, string>; toModern: ReadonlyMap<string, string> } {
  const [modernVersion] = MODERN_PROTOCOL_VERSIONS;
  const toLegacy = new Map<string, string>();
  for (const method of modern.keys()) {
    if (legacy.has(method)) continue;
    toLegacy.set(
      method,
      `${method} is served only on protocol revision ${modernVersion}. This request was read as ` +
        `a 2025 request because it carries neither the MCP-Protocol-Version: ${modernVersion} and ` +
        `Mcp-Method: ${method} headers nor params._meta["${META_PROTOCOL_VERSION}"]; send all ` +
        `three, with params._meta["${META_CLIENT_CAPABILITIES}"]`,
    );
  }
  const toModern = new Map<string, string>();
  for (const method of ['initialize', ...legacy.keys()]) {
    if (modern.has(method)) continue;
    toModern.set(
      method,
      `${method} belongs to the 2025 revisions (${LEGACY_PROTOCOL_VERSIONS.join(', ')}) and is ` +
        `not part of ${modernVersion}`,
    );
  }
  return { toLegacy, toModern };
}

/** The version label of a message whose era only the headers tell. */
function versionOfHeaders(era: Era, headers: McpHttpRequest['headers']): string {
  return headerVersionLabel(headers, era === 'legacy' ? LEGACY_DEFAULT_PROTOCOL_VERSION : UNKNOWN);
}

/**
 * The transport-independent MCP JSON-RPC core for `POST /mcp`: both eras on one endpoint, stateless
 * (a 2025 session id, when configured, is signed and carries only the client's name). A response
 * is JSON, or an SSE stream once a handler sends something before its result (progress, log
 * messages, 2025 requests to the client; see RequestChannel). The controller authenticates, checks
 * Origin/size/Accept, then calls {@link handle} and writes back what it returns. This class frames
 * the message and picks the era; each era serves its methods in its own file (LegacyEra, ModernEra),
 * running handlers through one HandlerRunner and answering through one reply builder.
 */
export class McpEndpointService<TExtra> {
  private readonly legacy: LegacyEra<TExtra>;
  private readonly modern: ModernEra<TExtra>;
  private readonly observe: McpEndpointOptions<TExtra>['observe'];
  private readonly traceMessage: McpEndpointOptions<TExtra>['traceMessage'];
  private readonly ownerOf: (extra: TExtra) => string;

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

    this.observe = options.observe;
    this.traceMessage = options.traceMessage;
    this.ownerOf = options.ownerOf ?? (() => '');
    const pending = new PendingClientRequests(
      options.clientRequestTimeoutMs ?? DEFAULT_CLIENT_REQUEST_TIMEOUT_MS,
    );
    const runner = new HandlerRunner<TExtra>(options.onInternalError, pending);

    const fullInfo: Record<string, unknown> = {
      name: serverInfo.name,
      version: serverInfo.version,
    };
    if (serverInfo.title !== undefined) fullInfo.title = serverInfo.title;
    const serverInfoMeta = { [META_SERVER_INFO]: fullInfo };

    const discover: Record<string, unknown> = {
      resultType: 'complete',
      supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
      capabilities: modernCaps,
    };
    if (instructions !== undefined) discover.instructions = instructions;
    discover.ttlMs = discoverTtlMs;
    discover.cacheScope = 'public';
    discover[META_FIELD] = serverInfoMeta;

    const initialize = new Map<LegacyProtocolVersion, string>();
    for (const version of LEGACY_PROTOCOL_VERSIONS) {
      // `title` joined Implementation in 2025-06-18; keep each revision's own shape.
      const info = isFirstRevision(version)
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
        allowsTask: TASK_METHODS.has(method),
      };
      if (advertises(legacyCaps, method)) legacy.set(method, route);
      if (advertises(modernCaps, method)) modern.set(method, route);
    }
    const { toLegacy, toModern } = otherEraHints(legacy, modern);
    this.legacy = new LegacyEra<TExtra>({
      routes: legacy,
      otherEraHints: toLegacy,
      initializeResults: initialize,
      sessionIds: options.sessionIds,
      pending,
      runner,
    });
    this.modern = new ModernEra<TExtra>({
      routes: modern,
      discoverResult: JSON.stringify(discover),
      serverInfoMeta,
      runner,
      otherEraHints: toModern,
      paramHeadersOf: options.paramHeadersOf,
    });
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
      const message = parseJsonRpcMessage(request.body);
      const scope = this.traceMessage?.(messageStart(message, request.headers));
      const serve = (): Promise<Handled> => this.process(message, request, extra, exchange);
      (scope === undefined ? serve() : scope.run(serve))
        .then((handled) => {
          // A streamed answer ends with the final message on its stream (whatever its HTTP status
          // would have been: 200 is already sent).
          if (handled.channel?.streaming === true)
            handled.channel.finish(handled.response.body ?? '');
          const observation: McpObservation = {
            era: handled.era,
            protocolVersion: handled.protocolVersion,
            method: handled.method,
            outcome: handled.outcome,
            toolError: handled.toolError === true,
            requestedTool: requestedTool(message),
            durationMs: performance.now() - started,
            ...(scope?.traceId === undefined ? {} : { traceId: scope.traceId }),
          };
          scope?.end(observation);
          this.observe?.(observation);
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
    message: JsonRpcMessage,
    request: McpHttpRequest,
    extra: TExtra,
    exchange: Exchange,
  ): Promise<Handled> {
    const { headers } = request;
    switch (message.kind) {
      case 'invalid': {
        const era = eraFromHeaders(headers);
        const to = { era, protocolVersion: versionOfHeaders(era, headers), method: UNKNOWN };
        return reply.error({ ...to, id: message.id }, message.code, message.message, {
          status: 400,
        });
      }
      case 'response': {
        const era = eraFromHeaders(headers);
        if (era === 'legacy') return this.legacy.settleClientResponse(message, headers, exchange);
        return reply.error(
          { era, protocolVersion: versionOfHeaders(era, headers), method: UNKNOWN, id: message.id },
          INVALID_REQUEST,
          'Invalid Request: clients must not send JSON-RPC responses in 2026-07-28',
        );
      }
      case 'notification': {
        const era = classifyEra(message.method, message.params, headers);
        const label = methodLabel(message.method);
        if (era === 'legacy')
          return this.legacy.acceptNotification(headers, label, message.params, exchange);
        return reply.accepted({
          era,
          protocolVersion: versionOfHeaders(era, headers),
          method: label,
        });
      }
      case 'request': {
        const { id, method, params } = message;
        const era = classifyEra(method, params, headers) === 'legacy' ? this.legacy : this.modern;
        const { requestId } = request;
        return era.serve({ id, method, params, headers, requestId, extra, exchange });
      }
      default:
        return unreachable(message);
    }
  }
}

/** The `params.name` of a `tools/call` request, as sent. */
function requestedTool(message: JsonRpcMessage): string | undefined {
  if (message.kind !== 'request' || message.method !== 'tools/call') return undefined;
  const name = message.params?.name;
  return typeof name === 'string' ? name : undefined;
}

function messageStart(
  message: JsonRpcMessage,
  headers: McpHttpRequest['headers'],
): McpMessageStart {
  switch (message.kind) {
    case 'request':
      return {
        method: methodLabel(message.method),
        id: message.id,
        params: message.params,
        headers,
      };
    case 'notification':
      return {
        method: methodLabel(message.method),
        id: undefined,
        params: message.params,
        headers,
      };
    case 'response':
    case 'invalid':
      return { method: UNKNOWN, id: undefined, params: undefined, headers };
    default:
      return unreachable(message);
  }
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
    if (advertises(capabilities, method) && handlers[method] === undefined) {
      const capability = HANDLED_METHOD_CAPABILITY[method];
      const name = typeof capability === 'string' ? capability : capability.extension;
      throw new Error(
        `McpEndpointService: ${era} capability '${name}' is advertised but ${method} has no handler`,
      );
    }
  }
  // The 2025 revisions have a tasks utility of their own (another shape), which this server
  // does not speak: the extension is a 2026-07-28 one.
  if (era === 'legacy' && isJsonObject(capabilities.extensions)) {
    throw new Error('McpEndpointService: legacy capabilities cannot advertise extensions');
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
