import { AUTH_ERROR_CODES } from '@app/rest-contract';

/**
 * What became of a tool call, in four classes an admin reads at a glance (the Activity chart
 * stacks them): `ok` (including `input_required`: a confirmation was asked), `refused` (the
 * call was not allowed to run: an authorization check, or the person's confirmation missing,
 * declined or already used), `protocol_error` (a JSON-RPC error: unknown tool, bad arguments,
 * tampered state) and `tool_error` (any other error result the caller can act on).
 */
export const TOOL_CALL_OUTCOMES = ['ok', 'tool_error', 'refused', 'protocol_error'] as const;
export type ToolCallOutcome = (typeof TOOL_CALL_OUTCOMES)[number];

const SUCCESS_STATUSES: readonly string[] = ['ok', 'input_required'];
const PROTOCOL_ERROR_PREFIX = 'rpc_error:';

/** Statuses of calls that were refused before they ran. */
export const REFUSAL_STATUSES: readonly string[] = [
  ...AUTH_ERROR_CODES.filter((c) => c !== 'UNAUTHENTICATED' && c !== 'INVALID_TOKEN'),
  'confirmation_required',
  'confirmation_replayed',
  'USER_DECLINED',
];

export function outcomeOf(status: string): ToolCallOutcome {
  if (SUCCESS_STATUSES.includes(status)) return 'ok';
  if (status.startsWith(PROTOCOL_ERROR_PREFIX)) return 'protocol_error';
  if (REFUSAL_STATUSES.includes(status)) return 'refused';
  return 'tool_error';
}

/**
 * The same classification in SQL, over the `status` column, for aggregates. `bind` adds a
 * parameter and returns its placeholder; a test runs both against every status.
 */
export function outcomeSql(bind: (value: unknown) => string): string {
  return `CASE
    WHEN status = ANY(${bind(SUCCESS_STATUSES)}::text[]) THEN 'ok'
    WHEN starts_with(status, ${bind(PROTOCOL_ERROR_PREFIX)}) THEN 'protocol_error'
    WHEN status = ANY(${bind(REFUSAL_STATUSES)}::text[]) THEN 'refused'
    ELSE 'tool_error' END`;
}
