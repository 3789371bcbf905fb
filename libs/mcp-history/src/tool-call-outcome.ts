import {
  rpcErrorCodeOf,
  RPC_ERROR_PREFIX,
  TOOL_CALL_REFUSAL_STATUSES,
  TOOL_CALL_SUCCESS_STATUSES,
} from '@app/mcp-transport';

/**
 * What became of a tool call, in four classes an admin reads at a glance (the Activity chart
 * stacks them), from its status (`ToolCallStatus` in @app/mcp-transport): `ok` (including
 * `input_required`: a confirmation was asked), `refused` (the call was not allowed to run: an
 * authorization check, or a confirmation the client cannot ask for or already used),
 * `protocol_error` (a JSON-RPC error: unknown tool, bad arguments, tampered state) and
 * `tool_error` (any other error result the caller can act on, `USER_DECLINED` included: the person
 * was asked and said no, an answer the README lists among the tool errors, not a refusal).
 */
export const TOOL_CALL_OUTCOMES = ['ok', 'tool_error', 'refused', 'protocol_error'] as const;
export type ToolCallOutcome = (typeof TOOL_CALL_OUTCOMES)[number];

const SUCCESS: ReadonlySet<string> = new Set(TOOL_CALL_SUCCESS_STATUSES);
const REFUSAL: ReadonlySet<string> = new Set(TOOL_CALL_REFUSAL_STATUSES);

export function outcomeOf(status: string): ToolCallOutcome {
  if (SUCCESS.has(status)) return 'ok';
  if (rpcErrorCodeOf(status) !== undefined) return 'protocol_error';
  if (REFUSAL.has(status)) return 'refused';
  return 'tool_error';
}

/**
 * The same classification in SQL, over the `status` column, for aggregates. `bind` adds a
 * parameter and returns its placeholder; a test runs both against every status.
 */
export function outcomeSql(bind: (value: unknown) => string): string {
  return `CASE
    WHEN status = ANY(${bind(TOOL_CALL_SUCCESS_STATUSES)}::text[]) THEN 'ok'
    WHEN starts_with(status, ${bind(RPC_ERROR_PREFIX)}) THEN 'protocol_error'
    WHEN status = ANY(${bind(TOOL_CALL_REFUSAL_STATUSES)}::text[]) THEN 'refused'
    ELSE 'tool_error' END`;
}
