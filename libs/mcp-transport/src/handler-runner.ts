import { isJsonObject } from '@app/common';
import { acceptsEventStream } from './http-headers.util.js';
import { errorBody } from './json-rpc.codec.js';
import type {
  Era,
  JsonRpcId,
  McpEndpointOptions,
  McpHandlerOutcome,
  McpHttpRequest,
  McpMethodHandler,
  McpRequestContext,
  McpResponseStream,
} from './mcp-endpoint.types.js';
import { INTERNAL_ERROR, META_FIELD } from './mcp-protocol.constants.js';
import { McpError } from './mcp.error.js';
import type { PendingClientRequests } from './pending-client-requests.js';
import { RequestChannel, type LoggingLevel } from './request-channel.js';
import { jsonResponse, reply, statusForCode, type Handled } from './endpoint-reply.js';
import { rpcErrorStatus } from './tool-call-status.js';

/** A caller-supplied handler as served in one era. */
export interface HandlerRoute<TExtra> {
  kind: 'handler';
  handler: McpMethodHandler<TExtra>;
  cacheable: boolean;
  allowsInputRequired: boolean;
  /** The method may answer with a task (`tools/call`, the tasks extension). */
  allowsTask: boolean;
}

/** What one POST's handler needs from its HTTP exchange besides the message. */
export interface Exchange {
  /** The caller's key ({@link McpEndpointOptions.ownerOf}). */
  owner: string;
  /** Makes the HTTP response an SSE stream (called at the first message before the result). */
  open: (stream: McpResponseStream) => void;
}

/** A handler's outcome written as an answer of one era. May throw: the runner answers -32603. */
export type RenderOutcome<TExtra> = (
  outcome: McpHandlerOutcome,
  route: HandlerRoute<TExtra>,
  ctx: McpRequestContext,
  label: string,
) => Handled;

/**
 * One JSON-RPC request as an era serves it: the message, its HTTP request's headers and id, the
 * caller's `extra`, and the exchange it answers on.
 */
export interface EraRequest<TExtra> {
  id: JsonRpcId;
  method: string;
  params: Record<string, unknown> | undefined;
  headers: McpHttpRequest['headers'];
  requestId: string;
  extra: TExtra;
  exchange: Exchange;
}

/** One handler call; `render` is the era's (see LegacyEra and ModernEra). */
export interface HandlerCall<TExtra> {
  route: HandlerRoute<TExtra>;
  request: EraRequest<TExtra>;
  ctx: McpRequestContext;
  label: string;
  channel: RequestChannel;
  render: RenderOutcome<TExtra>;
}

/**
 * Runs a caller's handler the same way in both eras: its request channel, the errors it throws
 * (an `McpError` is answered as itself, anything else as a sanitised -32603), and the rendered
 * JSON of frozen results, kept so a result returned again is serialised once.
 */
export class HandlerRunner<TExtra> {
  /**
   * The rendered JSON of frozen handler results, per result object and rendering (era, cache
   * hint): a handler that returns the same frozen result again (`tools/list`, the same for every
   * caller) is serialised once, not on every request.
   */
  private readonly renderedResults = new WeakMap<object, Map<string, string>>();

  constructor(
    private readonly onInternalError: McpEndpointOptions<TExtra>['onInternalError'],
    private readonly pending: PendingClientRequests,
  ) {}

  /**
   * The handler's context for a request served in `era` at `protocolVersion`, and its channel;
   * `client` is what the era knows of the client (2026-07-28: the request's `_meta`; 2025: its
   * session).
   */
  contextFor(
    era: Era,
    protocolVersion: string,
    request: EraRequest<TExtra>,
    logLevel: LoggingLevel | undefined,
    client: Pick<McpRequestContext, 'clientInfo' | 'clientCapabilities' | 'meta'>,
  ): { ctx: McpRequestContext; channel: RequestChannel } {
    const channel = this.channelFor(era, request, logLevel);
    const ctx: McpRequestContext = {
      era,
      protocolVersion,
      method: request.method,
      jsonRpcId: request.id,
      ...client,
      channel,
    };
    return { ctx, channel };
  }

  /**
   * The request's channel: it streams only if the client accepts SSE; progress needs the request's
   * `_meta.progressToken` (both eras), log messages a level (see `McpRequestChannel.log`).
   */
  private channelFor(
    era: Era,
    { params, headers, exchange }: EraRequest<TExtra>,
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
      pending: this.pending,
      open: exchange.open,
    });
  }

  async run(call: HandlerCall<TExtra>): Promise<Handled> {
    const handled = await this.runOnce(call);
    handled.channel = call.channel;
    return handled;
  }

  /**
   * `render()`, or for a frozen result (it cannot change any more) the JSON rendered the first time
   * this result object was rendered this way.
   */
  renderOnce(result: object, rendering: string, render: () => string): string {
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

  private async runOnce(call: HandlerCall<TExtra>): Promise<Handled> {
    const { route, ctx, label } = call;
    let outcome: McpHandlerOutcome;
    try {
      outcome = await route.handler(call.request.params ?? {}, ctx, call.request.extra);
    } catch (error) {
      return this.thrown(error, call);
    }
    try {
      const handled = call.render(outcome, route, ctx, label);
      if (handled.outcome === 'ok' && isToolErrorResult(ctx.method, outcome))
        handled.toolError = true;
      return handled;
    } catch (error) {
      // e.g. a result JSON.stringify cannot serialise (BigInt, cycle), or a handler contract breach.
      return this.internalError(error, call);
    }
  }

  private thrown(error: unknown, call: HandlerCall<TExtra>): Handled {
    if (!(error instanceof McpError)) return this.internalError(error, call);
    const { ctx } = call;
    const code = error.codeFor(ctx.era);
    let body: string;
    try {
      body = errorBody(ctx.jsonRpcId, code, error.message, error.data);
    } catch (serializationError) {
      return this.internalError(serializationError, call);
    }
    return {
      response: jsonResponse(statusForCode(ctx.era, code), body),
      era: ctx.era,
      protocolVersion: ctx.protocolVersion,
      method: call.label,
      outcome: rpcErrorStatus(code),
    };
  }

  /** Sanitised -32603: the caller learns only the HTTP request id; the log gets the real error. */
  private internalError(error: unknown, call: HandlerCall<TExtra>): Handled {
    const { ctx } = call;
    this.onInternalError(error, ctx, call.request.extra);
    return reply.error(
      { era: ctx.era, protocolVersion: ctx.protocolVersion, method: call.label, id: ctx.jsonRpcId },
      INTERNAL_ERROR,
      'Internal error',
      { data: { requestId: call.request.requestId } },
    );
  }
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

export function requireResultObject(result: unknown, method: string): Record<string, unknown> {
  if (!isJsonObject(result)) throw new Error(`${method} returned a result that is not an object`);
  return result;
}
