import { toEnvelope, type ErrorEnvelope } from '@app/errors';
import type { TaskError } from '@app/mcp-tasks';
import {
  INTERNAL_ERROR,
  McpError,
  rpcErrorStatus,
  UNCODED_TOOL_ERROR,
  type McpHandlerOutcome,
  type McpRequestContext,
  type ToolCallStatus,
} from '@app/mcp-transport';
import { APPROVAL_TASK_FAILED, envelopeOf } from './mcp-refusals.js';
import type { RestResponse } from './rest-dispatcher.js';
import type { Progress } from './tool-call.record.js';
import { errorResult, type ToolResult } from './tool-results.js';

/*
 * What a finished call came to, as the executor answers it: its status for the history and what
 * the client gets, a result (an API refusal is a tool error carrying the envelope) or a protocol
 * error; and an approval task's failure as a task error.
 */

/** A finished call: its status for the history and what the client gets (a result or an error). */
export type Executed = Progress & { status: ToolCallStatus; historyWritten?: boolean } & (
    { outcome: McpHandlerOutcome; error?: undefined } | { error: unknown; outcome?: undefined }
  );

/** A tool error (`isError` result carrying the API envelope); its code is the call's status. */
export function refusedWith(envelope: ErrorEnvelope, progress: Progress): Executed {
  const result: ToolResult = errorResult(envelope);
  return { ...progress, status: envelope.error.code, outcome: { kind: 'complete', result } };
}

/** A protocol error: the transport answers it as a JSON-RPC error (-32603 for anything unexpected). */
export function failed(err: unknown, ctx: McpRequestContext, progress: Progress): Executed {
  const status = rpcErrorStatus(err instanceof McpError ? err.codeFor(ctx.era) : INTERNAL_ERROR);
  return { ...progress, status, error: err };
}

/** A REST answer that is not a success, as the API envelope it carries (or an internal error). */
export function asEnvelope(response: RestResponse): ErrorEnvelope {
  return (
    envelopeOf(response.body) ??
    toEnvelope('INTERNAL_ERROR', `Unexpected response ${response.status}`)
  );
}

/** An extension tool's outcome as its call's status. */
export function statusOfOutcome(outcome: McpHandlerOutcome): ToolCallStatus {
  if (outcome.kind === 'input_required') return 'input_required';
  if (outcome.kind === 'task') return 'ok';
  return outcome.result.isError === true ? UNCODED_TOOL_ERROR : 'ok';
}

/** The JSON-RPC error of an approval task that ended without running: the API envelope as data. */
export function approvalTaskError(envelope: ErrorEnvelope): TaskError {
  return { code: APPROVAL_TASK_FAILED, message: envelope.error.message, data: envelope };
}
