import { isJsonObject } from '@app/common';
import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { AccessPolicy } from '@app/access';
import { toEnvelope, type ErrorEnvelope } from '@app/errors';
import type { CallerContext } from '@app/identity';
import {
  McpError,
  INVALID_PARAMS,
  normalizeClientString,
  type McpHandlerOutcome,
  type McpRequestContext,
} from '@app/mcp-transport';
import { isErrorEnvelope } from './json-values.js';
import { clientNameOf, type McpCallExtra } from './mcp-call-extra.js';
import { RestDispatcher, type RestResponse } from './rest-dispatcher.js';
import { ToolCatalog, type CompiledTool } from './tool-catalog.js';
import { errorResult, successResult, type ToolResult } from './tool-results.js';
import { DestructiveToolGate } from './destructive-tool.gate.js';
import { ToolCallObserver, type ToolCallOutcome } from './tool-call.observer.js';

/** Thrown by the REST layer for an unexpected failure: the MCP caller gets -32603, never the text. */
class UpstreamInternalError extends Error {}

/**
 * Every `tools/call` goes through here, in this order: the tool exists → every argument is
 * declared → the four authorization checks → confirmation (destructive tools) → dispatch to the
 * REST endpoint in-process → map the answer → history, log line, metrics.
 */
@Injectable()
export class ToolExecutor {
  private readonly logger = new Logger(ToolExecutor.name);

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly policy: AccessPolicy,
    private readonly dispatcher: RestDispatcher,
    private readonly gate: DestructiveToolGate,
    private readonly observer: ToolCallObserver,
  ) {}

  async call(
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<McpHandlerOutcome> {
    const started = performance.now();
    const receivedAt = preciseTimestamp(performance.timeOrigin + started);
    const name = params.name;
    if (typeof name !== 'string' || name === '')
      throw new McpError(INVALID_PARAMS, 'Invalid params: tool name is required');
    const tool = this.catalog.get(name);
    const outcome: ToolCallOutcome = {
      id: randomUUID(),
      tool: tool === undefined ? null : name,
      attemptedTool: normalizeClientString(name) || 'unknown',
      receivedAt,
      readOnly: tool?.def.annotations.readOnlyHint ?? true,
      ctx,
      extra,
      status: 'ok',
      confirmationId: null,
      args: undefined,
      durationMs: 0,
    };
    try {
      if (tool === undefined) throw new McpError(INVALID_PARAMS, `Unknown tool: ${name}`, { name });
      const args = this.readArguments(tool, params.arguments);
      outcome.args = args;
      const result = await this.run(tool, args, params, ctx, extra, outcome);
      return result;
    } catch (err) {
      outcome.status =
        err instanceof McpError ? `rpc_error:${err.codeFor(ctx.era)}` : 'rpc_error:-32603';
      throw err;
    } finally {
      outcome.durationMs = performance.now() - started;
      await this.observer.completed(outcome);
    }
  }

  private async run(
    tool: CompiledTool,
    args: Record<string, unknown>,
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
    outcome: ToolCallOutcome,
  ): Promise<McpHandlerOutcome> {
    const refusal = this.policy.evaluate(extra.principal, tool.access);
    if (refusal !== null) return this.fail(refusal.toEnvelope(), outcome);

    const caller: CallerContext = {
      principal: extra.principal,
      channel: 'mcp',
      clientName: clientNameOf(ctx, extra),
      confirmationId: null,
      requestId: extra.requestId,
    };

    if (tool.def.confirmation !== undefined) {
      const decision = await this.gate.check(tool, args, params, ctx, caller);
      outcome.confirmationId = decision.confirmationId;
      if (decision.kind === 'input_required') {
        outcome.status = 'input_required';
        return {
          kind: 'input_required',
          inputRequests: decision.inputRequests,
          requestState: decision.requestState,
        };
      }
      if (decision.kind === 'refused') {
        outcome.consumedConfirmation = decision.consumed === true;
        return this.fail(decision.envelope, outcome);
      }
      outcome.consumedConfirmation = true;
      caller.confirmationId = decision.confirmationId;
    }

    const response = await this.dispatch(tool, args, caller);
    if (response.status >= 200 && response.status < 300) {
      const result =
        response.body === undefined || response.body === null
          ? successResult({}, ctx.protocolVersion)
          : successResult(response.body, ctx.protocolVersion, response.text);
      return { kind: 'complete', result };
    }
    return this.fail(asEnvelope(response), outcome);
  }

  private fail(envelope: ErrorEnvelope, outcome: ToolCallOutcome): McpHandlerOutcome {
    outcome.status = envelope.error.code;
    const result: ToolResult = errorResult(envelope);
    return { kind: 'complete', result };
  }

  /** Only declared argument names pass; a declared argument with a bad value is the endpoint's to judge. */
  private readArguments(tool: CompiledTool, raw: unknown): Record<string, unknown> {
    if (raw === undefined || raw === null) return {};
    if (!isJsonObject(raw)) {
      throw new McpError(INVALID_PARAMS, 'Invalid params: arguments must be an object');
    }
    const args = raw;
    for (const key of Object.keys(args)) {
      if (!tool.argumentNames.has(key)) {
        throw new McpError(INVALID_PARAMS, `Unknown argument "${key}" for tool ${tool.def.name}`, {
          argument: key,
          allowed: [...tool.argumentNames],
        });
      }
    }
    return args;
  }

  async dispatch(
    tool: CompiledTool,
    args: Record<string, unknown>,
    caller: CallerContext,
  ): Promise<RestResponse> {
    const { endpoint } = tool.def;
    let path = endpoint.path;
    const rest: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(args)) {
      if (tool.pathParams.includes(k)) continue;
      rest[k] = v;
    }
    for (const p of tool.pathParams) {
      const value = args[p];
      // A missing or malformed id is the endpoint's business (it answers 404/422 in its envelope).
      path = path.replace(
        `:${p}`,
        encodeURIComponent(typeof value === 'string' && value !== '' ? value : '-'),
      );
    }
    const method = endpoint.method;
    const response = await this.dispatcher.dispatch(
      caller,
      method,
      path,
      method === 'GET' || method === 'DELETE' ? { query: rest } : { body: rest },
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

function asEnvelope(response: RestResponse): ErrorEnvelope {
  const body = response.body;
  if (isErrorEnvelope(body)) return body;
  return toEnvelope('INTERNAL_ERROR', `Unexpected response ${response.status}`);
}

/** An instant in epoch milliseconds (with a fraction) as RFC 3339 with microseconds. */
function preciseTimestamp(epochMs: number): string {
  const ms = Math.floor(epochMs);
  const micros = Math.min(999, Math.floor((epochMs - ms) * 1000));
  return new Date(ms).toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`);
}
