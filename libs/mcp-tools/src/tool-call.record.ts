import { randomUUID } from 'node:crypto';
import type { McpRequestContext, ToolCallStatus } from '@app/mcp-transport';
import type { McpCallExtra } from './mcp-call-extra.js';
import type { CompiledTool } from './tool-catalog.js';
import type { ToolCallOutcome } from './tool-call.observer.js';

/*
 * What a call's history row and log line are made of, as the executor gathers them: when the
 * call was received ({@link Stamp}), the tool it names ({@link NamedTool}) and how far it got
 * ({@link Progress}); {@link outcomeOf} puts them together for the observer, with the time taken.
 */

/** How far a call got: what the history and the log line record besides its status. */
export interface Progress {
  args: Record<string, unknown> | undefined;
  confirmationId: string | null;
  /** The approval request the call ran under or was refused for (policy `approval`). */
  approvalId: string | null;
  /** The person accepted and the tool was dispatched: the confirmation is used up. */
  consumedConfirmation: boolean;
}

export const NOTHING_YET: Progress = {
  args: undefined,
  confirmationId: null,
  approvalId: null,
  consumedConfirmation: false,
};

/** The tool a call's history row names: the registry's name (null if unknown), the one asked for. */
export type NamedTool = Pick<ToolCallOutcome, 'tool' | 'attemptedTool' | 'readOnly'>;

/** When a call was received, and the id its history row gets. */
export interface Stamp {
  id: string;
  started: number;
  receivedAt: string;
}

export function newStamp(): Stamp {
  const started = performance.now();
  return {
    id: randomUUID(),
    started,
    receivedAt: preciseTimestamp(performance.timeOrigin + started),
  };
}

/** A registry tool as its history row names it. */
export function namedTool(tool: CompiledTool): NamedTool {
  return {
    tool: tool.def.name,
    attemptedTool: tool.def.name,
    readOnly: tool.def.annotations.readOnlyHint,
  };
}

/** A call as the observer records it: its stamp and tool, how far it got, its time until now. */
export function outcomeOf(
  stamp: Stamp,
  named: NamedTool,
  ctx: McpRequestContext,
  extra: McpCallExtra,
  executed: Progress & { status: ToolCallStatus },
): ToolCallOutcome {
  return {
    id: stamp.id,
    ...named,
    receivedAt: stamp.receivedAt,
    ctx,
    extra,
    status: executed.status,
    confirmationId: executed.confirmationId,
    approvalId: executed.approvalId,
    consumedConfirmation: executed.consumedConfirmation,
    args: executed.args,
    durationMs: performance.now() - stamp.started,
  };
}

/** An instant in epoch milliseconds (with a fraction) as RFC 3339 with microseconds. */
function preciseTimestamp(epochMs: number): string {
  const ms = Math.floor(epochMs);
  const micros = Math.min(999, Math.floor((epochMs - ms) * 1000));
  return new Date(ms).toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`);
}
