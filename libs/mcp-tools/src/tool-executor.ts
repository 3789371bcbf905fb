import { isJsonObject, normalizeClientString, unreachable } from '@app/common';
import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AccessPolicy } from '@app/access';
import { PolicyTools } from '@app/confirmation-policies';
import { toEnvelope, type ErrorEnvelope } from '@app/errors';
import type { CallerContext } from '@app/identity';
import {
  McpError,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  rpcErrorStatus,
  UNCODED_TOOL_ERROR,
  type ToolCallStatus,
  type McpHandlerOutcome,
  type McpRequestContext,
} from '@app/mcp-transport';
import { annotateActiveSpan, capturesToolContent, inSpan, inSpanAsync } from '@app/tracing';
import { envelopeOf } from './mcp-refusals.js';
import { clientNameOf, type McpCallExtra } from './mcp-call-extra.js';
import { RestDispatcher, type RestResponse } from './rest-dispatcher.js';
import {
  pathValuesOf,
  ToolCatalog,
  type CompiledExtensionTool,
  type CompiledTool,
} from './tool-catalog.js';
import { errorResult, successResult, type ToolResult } from './tool-results.js';
import { DestructiveToolGate } from './destructive-tool.gate.js';
import { ToolCallObserver } from './tool-call.observer.js';

/** Thrown by the REST layer for an unexpected failure: the MCP caller gets -32603, never the text. */
class UpstreamInternalError extends Error {}

/** How far a call got: what the history and the log line record besides its status. */
interface Progress {
  args: Record<string, unknown> | undefined;
  confirmationId: string | null;
  /** The person accepted and the tool was dispatched: the confirmation is used up. */
  consumedConfirmation: boolean;
}

/** A finished call: its status for the history and what the client gets (a result or an error). */
type Executed = Progress & { status: ToolCallStatus; historyWritten?: boolean } & (
    { outcome: McpHandlerOutcome; error?: undefined } | { error: unknown; outcome?: undefined }
  );

/** When a call was received, and the id its history row gets. */
interface Stamp {
  id: string;
  started: number;
  receivedAt: string;
}

/** The children of a `tools/call` span (the route in a dispatch span's name is its template). */
const SPAN_AUTHORIZE = 'mcp.authorize';
const SPAN_CONFIRMATION = 'mcp.confirmation';
const SPAN_DISPATCH = 'mcp.dispatch';
/** The conventions' opt-in attributes of a `tools/call` span (the call's content, as JSON). */
const ATTR_ARGUMENTS = 'gen_ai.tool.call.arguments';
const ATTR_RESULT = 'gen_ai.tool.call.result';

const NOTHING_YET: Progress = {
  args: undefined,
  confirmationId: null,
  consumedConfirmation: false,
};

/**
 * Every `tools/call` goes through here, in this order: the tool exists → every argument is
 * declared → the four authorization checks → confirmation (destructive tools) → dispatch to the
 * REST endpoint in-process → map the answer → history, log line, metrics. Each step returns what
 * it decided; the observer records the finished call once.
 */
@Injectable()
export class ToolExecutor implements OnApplicationBootstrap {
  private readonly logger = new Logger(ToolExecutor.name);

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly policy: AccessPolicy,
    private readonly dispatcher: RestDispatcher,
    private readonly gate: DestructiveToolGate,
    private readonly observer: ToolCallObserver,
    private readonly policyTools: PolicyTools,
  ) {}

  /**
   * A tool whose endpoint (or confirmation lookup) cannot be dispatched to fails the start-up.
   * Every tool that asks before it runs is one an organisation can set a confirmation policy for.
   */
  onApplicationBootstrap(): void {
    for (const name of this.catalog.names()) {
      const def = this.catalog.get(name)?.def;
      if (def === undefined) continue;
      this.dispatcher.assertDispatchable(def.endpoint);
      if (def.confirmation !== undefined) {
        this.dispatcher.assertDispatchable(def.confirmation.lookup);
        this.policyTools.declare([{ name: def.name, title: def.annotations.title }]);
      }
    }
  }

  async call(
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<McpHandlerOutcome> {
    const started = performance.now();
    const stamp: Stamp = {
      id: randomUUID(),
      started,
      receivedAt: preciseTimestamp(performance.timeOrigin + started),
    };
    const name = params.name;
    if (typeof name !== 'string' || name === '')
      throw new McpError(INVALID_PARAMS, 'Invalid params: tool name is required');
    const tool = this.catalog.get(name);
    const added = tool === undefined ? this.catalog.extension(name) : undefined;
    // Opt-in only (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT): request data on the span.
    const capture = capturesToolContent();
    if (capture) annotateActiveSpan({ [ATTR_ARGUMENTS]: JSON.stringify(params.arguments ?? {}) });
    const executed =
      tool !== undefined
        ? await this.execute(tool, params, ctx, extra, stamp)
        : added !== undefined
          ? await this.executeExtension(added, params, ctx, extra)
          : failed(
              new McpError(INVALID_PARAMS, `Unknown tool: ${name}`, { name }),
              ctx,
              NOTHING_YET,
            );
    await this.observer.completed(
      {
        id: stamp.id,
        tool: tool === undefined && added === undefined ? null : name,
        attemptedTool: normalizeClientString(name) || 'unknown',
        receivedAt: stamp.receivedAt,
        readOnly: (tool?.def.annotations ?? added?.annotations)?.readOnlyHint ?? true,
        ctx,
        extra,
        status: executed.status,
        confirmationId: executed.confirmationId,
        consumedConfirmation: executed.consumedConfirmation,
        args: executed.args,
        durationMs: performance.now() - started,
      },
      { historyWritten: executed.historyWritten === true },
    );
    if (capture && executed.outcome?.kind === 'complete')
      annotateActiveSpan({ [ATTR_RESULT]: JSON.stringify(executed.outcome.result) });
    if (executed.outcome !== undefined) return executed.outcome;
    throw executed.error;
  }

  private async execute(
    tool: CompiledTool,
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
    stamp: Stamp,
  ): Promise<Executed> {
    let progress = NOTHING_YET;
    try {
      const args = readArguments(tool, params.arguments);
      progress = { ...progress, args };
      const refusal = inSpan(SPAN_AUTHORIZE, () =>
        this.policy.evaluate(extra.principal, tool.access),
      );
      if (refusal !== null) return refusedWith(refusal.toEnvelope(), progress);

      const caller: CallerContext = {
        principal: extra.principal,
        channel: 'mcp',
        clientName: clientNameOf(ctx, extra),
        confirmationId: null,
        requestId: extra.requestId,
      };
      const spec = tool.def.confirmation;
      if (spec !== undefined) {
        const decision = await inSpanAsync(SPAN_CONFIRMATION, () =>
          this.gate.check(tool, spec, args, params, ctx, caller),
        );
        progress = { ...progress, confirmationId: decision.confirmationId };
        switch (decision.kind) {
          case 'input_required':
            return {
              ...progress,
              status: 'input_required',
              outcome: {
                kind: 'input_required',
                inputRequests: decision.inputRequests,
                requestState: decision.requestState,
              },
            };
          case 'refused':
            return refusedWith(decision.envelope, progress);
          case 'rpc_error':
            return failed(decision.error, ctx, progress);
          case 'proceed':
            progress = { ...progress, consumedConfirmation: decision.confirmationId !== null };
            caller.confirmationId = decision.confirmationId;
            break;
          default:
            return unreachable(decision);
        }
      }

      // A write's history row commits in the write's own transaction, with its audit event: the
      // call is answered ok only once all three are in, and none is left without the others.
      let historyWritten = false;
      if (!tool.def.annotations.readOnlyHint) {
        caller.withWrite = async (tx) => {
          await this.observer.recordWithWrite(
            {
              id: stamp.id,
              tool: tool.def.name,
              attemptedTool: tool.def.name,
              receivedAt: stamp.receivedAt,
              readOnly: false,
              ctx,
              extra,
              status: 'ok',
              confirmationId: progress.confirmationId,
              consumedConfirmation: progress.consumedConfirmation,
              args,
              durationMs: performance.now() - stamp.started,
            },
            tx,
          );
          historyWritten = true;
        };
      }
      const response = await this.dispatch(tool, args, caller);
      caller.withWrite = undefined;
      if (response.status < 200 || response.status >= 300) {
        // Its transaction rolled back, the row with it: the observer writes the refusal's row.
        return refusedWith(asEnvelope(response), progress);
      }
      const result =
        response.body === undefined || response.body === null
          ? successResult({}, ctx.protocolVersion)
          : successResult(response.body, ctx.protocolVersion, response.text);
      return { ...progress, status: 'ok', historyWritten, outcome: { kind: 'complete', result } };
    } catch (err) {
      return failed(err, ctx, progress);
    }
  }

  /**
   * A tool an extension module added (not a REST endpoint): the same declared-names and
   * authorization checks, then the tool itself (it may answer `input_required`, use the request
   * channel, or fail with `isError`).
   */
  private async executeExtension(
    tool: CompiledExtensionTool,
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<Executed> {
    let progress = NOTHING_YET;
    try {
      const args = readDeclaredArguments(tool.name, tool.argumentNames, params.arguments);
      progress = { ...progress, args };
      const refusal = this.policy.evaluate(extra.principal, tool.access);
      if (refusal !== null) return refusedWith(refusal.toEnvelope(), progress);
      const outcome = await tool.run(args, params, ctx, extra);
      const status =
        outcome.kind === 'input_required'
          ? 'input_required'
          : outcome.result.isError === true
            ? UNCODED_TOOL_ERROR
            : 'ok';
      return { ...progress, status, outcome };
    } catch (err) {
      return failed(err, ctx, progress);
    }
  }

  private async dispatch(
    tool: CompiledTool,
    args: Record<string, unknown>,
    caller: CallerContext,
  ): Promise<RestResponse> {
    const { endpoint } = tool.def;
    const params = pathValuesOf(tool.pathParams, args);
    const rest: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(args)) {
      if (tool.pathParams.includes(k)) continue;
      rest[k] = v;
    }
    const method = endpoint.method;
    const response = await inSpanAsync(`${SPAN_DISPATCH} ${method} ${endpoint.path}`, () =>
      this.dispatcher.dispatch(caller, endpoint, {
        params,
        // The access checks ran in `run` for this caller and this requirement, the route's own.
        verified: tool.access,
        ...(method === 'GET' || method === 'DELETE' ? { query: rest } : { body: rest }),
      }),
    );
    if (response.status >= 500 && response.status !== 502 && response.status !== 503) {
      this.logger.error(
        { requestId: caller.requestId, status: response.status, tool: tool.def.name },
        'REST endpoint failed',
      );
      throw new UpstreamInternalError(
        `REST ${method} ${endpoint.path} answered ${response.status}`,
      );
    }
    return response;
  }
}

/** Only declared argument names pass; a declared argument with a bad value is the endpoint's to judge. */
function readArguments(tool: CompiledTool, raw: unknown): Record<string, unknown> {
  return readDeclaredArguments(tool.def.name, tool.argumentNames, raw);
}

function readDeclaredArguments(
  name: string,
  allowed: ReadonlySet<string>,
  raw: unknown,
): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (!isJsonObject(raw)) {
    throw new McpError(INVALID_PARAMS, 'Invalid params: arguments must be an object');
  }
  for (const key of Object.keys(raw)) {
    if (!allowed.has(key)) {
      throw new McpError(INVALID_PARAMS, `Unknown argument "${key}" for tool ${name}`, {
        argument: key,
        allowed: [...allowed],
      });
    }
  }
  return raw;
}

/** A tool error (`isError` result carrying the API envelope); its code is the call's status. */
function refusedWith(envelope: ErrorEnvelope, progress: Progress): Executed {
  const result: ToolResult = errorResult(envelope);
  return { ...progress, status: envelope.error.code, outcome: { kind: 'complete', result } };
}

/** A protocol error: the transport answers it as a JSON-RPC error (-32603 for anything unexpected). */
function failed(err: unknown, ctx: McpRequestContext, progress: Progress): Executed {
  const status = rpcErrorStatus(err instanceof McpError ? err.codeFor(ctx.era) : INTERNAL_ERROR);
  return { ...progress, status, error: err };
}

function asEnvelope(response: RestResponse): ErrorEnvelope {
  return (
    envelopeOf(response.body) ??
    toEnvelope('INTERNAL_ERROR', `Unexpected response ${response.status}`)
  );
}

/** An instant in epoch milliseconds (with a fraction) as RFC 3339 with microseconds. */
function preciseTimestamp(epochMs: number): string {
  const ms = Math.floor(epochMs);
  const micros = Math.min(999, Math.floor((epochMs - ms) * 1000));
  return new Date(ms).toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`);
}
