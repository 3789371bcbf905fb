import { isJsonObject, unreachable } from '@app/common';
import { checkInputRequests } from './client-capability.gate.js';
import { decodeHeaderValue, trimOws } from './http-headers.util.js';
import { resultBody } from './json-rpc.codec.js';
import type {
  McpCacheHint,
  McpHandlerOutcome,
  McpHttpRequest,
  McpRequestContext,
} from './mcp-endpoint.types.js';
import {
  HEADER_MISMATCH,
  INVALID_PARAMS,
  isModernProtocolVersion,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_FIELD,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  SUPPORTED_PROTOCOL_VERSIONS,
  UNSUPPORTED_PROTOCOL_VERSION,
} from './mcp-protocol.constants.js';
import { headerMatchesValue, type ParamHeader } from './param-headers.js';
import { isLoggingLevel } from './request-channel.js';
import {
  clientInfoOf,
  echo,
  HEADER_METHOD,
  HEADER_NAME,
  HEADER_PROTOCOL_VERSION,
  jsonResponse,
  LOGGING_LEVEL_LIST,
  methodLabel,
  methodNotFound,
  reply,
  UNKNOWN,
  versionLabel,
  type Handled,
  type RequestReplyTo,
} from './endpoint-reply.js';
import {
  requireResultObject,
  type EraRequest,
  type HandlerRoute,
  type HandlerRunner,
} from './handler-runner.js';

/** How a method is served in the 2026-07-28 era. */
export type ModernRoute<TExtra> = { kind: 'discover' } | HandlerRoute<TExtra>;

const DEFAULT_CACHE_HINT: McpCacheHint = { ttlMs: 0, cacheScope: 'private' };

/**
 * The header whose value must equal a body field, per method (SEP-2243 `Mcp-Name`; the tasks
 * extension adds its methods' `taskId`).
 */
const MCP_NAME_SOURCE: ReadonlyMap<string, 'name' | 'uri' | 'taskId'> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['tasks/get', 'taskId'],
  ['tasks/update', 'taskId'],
  ['tasks/cancel', 'taskId'],
]);

export interface ModernEraOptions<TExtra> {
  routes: ReadonlyMap<string, ModernRoute<TExtra>>;
  /** `server/discover`'s result JSON, rendered once. */
  discoverResult: string;
  /** `_meta` naming this server, on every result. */
  serverInfoMeta: Readonly<Record<string, unknown>>;
  runner: HandlerRunner<TExtra>;
  /** Methods served only in the other era → what to send to reach them (see methodNotFound). */
  otherEraHints: ReadonlyMap<string, string>;
  /** A tool's `x-mcp-header` arguments, for the `Mcp-Param-*` check (see McpEndpointOptions). */
  paramHeadersOf?: (toolName: string) => readonly ParamHeader[] | undefined;
}

/**
 * 2026-07-28: every request carries its version, client identity and capabilities in `_meta`,
 * mirrored in standard headers; results say their `resultType`, and tools, prompts and resources
 * may answer `input_required` (Multi Round-Trip Requests). Each request is checked in this order:
 * the `_meta` it needs → headers against the body → version → method → dispatch.
 */
export class ModernEra<TExtra> {
  constructor(private readonly options: ModernEraOptions<TExtra>) {}

  async serve(request: EraRequest<TExtra>): Promise<Handled> {
    const { id, method, params, headers } = request;
    const label = methodLabel(method);
    const unversioned: RequestReplyTo = {
      era: 'modern',
      protocolVersion: UNKNOWN,
      method: label,
      id,
    };

    // a. the _meta the request needs (400 / -32602)
    const meta = params?.[META_FIELD];
    if (!isJsonObject(meta))
      return badMeta(unversioned, 'Invalid params: params._meta is required');
    const version = meta[META_PROTOCOL_VERSION];
    if (typeof version !== 'string') {
      return badMeta(
        unversioned,
        `Invalid params: _meta["${META_PROTOCOL_VERSION}"] is required and must be a string`,
      );
    }
    const labelled: RequestReplyTo = { ...unversioned, protocolVersion: versionLabel(version) };
    const clientCapabilities = meta[META_CLIENT_CAPABILITIES];
    if (!isJsonObject(clientCapabilities)) {
      return badMeta(
        labelled,
        `Invalid params: _meta["${META_CLIENT_CAPABILITIES}"] is required and must be an object`,
      );
    }
    const rawLogLevel = meta[META_LOG_LEVEL];
    const logLevel = isLoggingLevel(rawLogLevel) ? rawLogLevel : undefined;
    if (rawLogLevel !== undefined && logLevel === undefined) {
      return badMeta(
        labelled,
        `Invalid params: _meta["${META_LOG_LEVEL}"] must be one of ${LOGGING_LEVEL_LIST}`,
      );
    }

    // b. header/body agreement (400 / -32020); wins over an unsupported version
    const mismatch =
      headerMismatch(method, params, version, headers) ??
      paramHeaderMismatch(method, params, headers, this.options.paramHeadersOf);
    if (mismatch !== undefined) {
      return reply.error(labelled, HEADER_MISMATCH, `Header mismatch: ${mismatch}`);
    }

    // c. version (400 / -32022). Per-request _meta exists only from 2026-07-28 on; a legacy revision
    //    is spoken through `initialize`, so it is refused here too (data.supported says which exist).
    if (!isModernProtocolVersion(version)) {
      return reply.error(labelled, UNSUPPORTED_PROTOCOL_VERSION, 'Unsupported protocol version', {
        data: { supported: SUPPORTED_PROTOCOL_VERSIONS, requested: version },
      });
    }

    // d. method served in this era (404 / -32601)
    const to: RequestReplyTo = { ...labelled, protocolVersion: version };
    const route = this.options.routes.get(method);
    if (route === undefined) return methodNotFound(to, method, this.options.otherEraHints);

    // e. dispatch
    switch (route.kind) {
      case 'discover':
        return reply.result(to, this.options.discoverResult);
      case 'handler': {
        const { runner } = this.options;
        const { ctx, channel } = runner.contextFor('modern', version, request, logLevel, {
          clientInfo: clientInfoOf(meta[META_CLIENT_INFO]),
          clientCapabilities,
          meta,
        });
        return runner.run({
          route,
          request,
          ctx,
          label,
          channel,
          render: (outcome, r, c, l) => this.render(outcome, r, c, l),
        });
      }
      default:
        return unreachable(route);
    }
  }

  private render(
    outcome: McpHandlerOutcome,
    route: HandlerRoute<TExtra>,
    ctx: McpRequestContext,
    label: string,
  ): Handled {
    const to: RequestReplyTo = {
      era: 'modern',
      protocolVersion: ctx.protocolVersion,
      method: label,
      id: ctx.jsonRpcId,
    };
    const { serverInfoMeta } = this.options;
    if (outcome.kind === 'complete') {
      const result = requireResultObject(outcome.result, ctx.method);
      const hint = route.cacheable ? (outcome.cache ?? DEFAULT_CACHE_HINT) : undefined;
      if (hint !== undefined && !isCacheHint(hint))
        throw new Error(`${ctx.method} returned an invalid cache hint`);
      const rendering = hint === undefined ? 'modern' : `modern:${hint.ttlMs}:${hint.cacheScope}`;
      const json = this.options.runner.renderOnce(result, rendering, () => {
        const body: Record<string, unknown> = { ...result, resultType: 'complete' };
        if (hint !== undefined) {
          body.ttlMs = hint.ttlMs;
          body.cacheScope = hint.cacheScope;
        }
        body[META_FIELD] = isJsonObject(result[META_FIELD])
          ? { ...result[META_FIELD], ...serverInfoMeta }
          : serverInfoMeta;
        return JSON.stringify(body);
      });
      return reply.result(to, json);
    }

    if (outcome.kind === 'task') {
      if (!route.allowsTask) throw new Error(`${ctx.method} returned a task; only tools/call may`);
      if (!isJsonObject(outcome.task) || typeof outcome.task.taskId !== 'string')
        throw new Error(`${ctx.method}: a task needs a string taskId`);
      // Flat (Result & Task): the task's own fields at the top level, no `task` wrapper.
      const body = { ...outcome.task, resultType: 'task', [META_FIELD]: serverInfoMeta };
      return reply.result(to, JSON.stringify(body));
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
          return reply.error(
            to,
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            `Missing required client capability: ${names}`,
            { data: { requiredCapabilities: verdict.requiredCapabilities } },
          );
        }
        case 'ok':
          body.inputRequests = inputRequests;
      }
    }
    if (requestState !== undefined) body.requestState = requestState;
    body[META_FIELD] = serverInfoMeta;
    return {
      response: jsonResponse(200, resultBody(ctx.jsonRpcId, body)),
      era: 'modern',
      protocolVersion: ctx.protocolVersion,
      method: label,
      outcome: 'input_required',
    };
  }
}

/** A request without the `_meta` it needs: 400 with -32602 (the request cannot be served as sent). */
function badMeta(to: RequestReplyTo, reason: string): Handled {
  return reply.error(to, INVALID_PARAMS, reason, { status: 400 });
}

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
 * SEP-2243 standard headers against the body: returns what disagrees, or undefined. Values are
 * compared case-sensitively after trimming surrounding whitespace; `Mcp-Name` is also
 * base64-sentinel decoded. `Mcp-Param-*` headers depend on tool schemas: {@link paramHeaderMismatch}.
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

/**
 * `Mcp-Param-*` against the tool's `x-mcp-header` arguments (tools/call): a non-null argument
 * needs its header, decoded equal to the value; an argument that is absent or null needs none.
 */
function paramHeaderMismatch(
  method: string,
  params: Record<string, unknown> | undefined,
  headers: McpHttpRequest['headers'],
  paramHeadersOf: ModernEraOptions<unknown>['paramHeadersOf'],
): string | undefined {
  if (method !== 'tools/call' || paramHeadersOf === undefined) return undefined;
  const name = params?.name;
  const mirrored = typeof name === 'string' ? paramHeadersOf(name) : undefined;
  if (mirrored === undefined || mirrored.length === 0) return undefined;
  const args = isJsonObject(params?.arguments) ? params.arguments : {};
  for (const { header, argument, type } of mirrored) {
    const value = args[argument];
    if (value === undefined || value === null) continue;
    const raw = headers[`mcp-param-${header.toLowerCase()}`];
    if (raw === undefined)
      return `Mcp-Param-${header} header is required when ${argument} is given`;
    const decoded = decodeHeaderValue(raw);
    if (decoded === null)
      return `Mcp-Param-${header} header value is malformed (invalid characters or base64)`;
    if (!headerMatchesValue(decoded, value, type))
      return `Mcp-Param-${header} header value '${echo(decoded)}' does not match argument ${argument}`;
  }
  return undefined;
}
