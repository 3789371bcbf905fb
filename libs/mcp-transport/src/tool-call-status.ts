import {
  AUTHORIZATION_CODES,
  CONFIRMATION_REFUSAL_CODES,
  isErrorCode,
  type ErrorCode,
} from '@app/errors';

/**
 * What became of one `tools/call`, in one vocabulary for its log line, its history row, its
 * metric label and its outcome class: `ok`, `input_required` (a confirmation was asked), the
 * error code of an `isError` result, `tool_error` for an `isError` result that carries no code
 * (the conformance fixtures' tools), or `rpc_error:<code>` for a JSON-RPC error.
 */
export type RpcErrorStatus = `rpc_error:${number}`;
export type ToolCallStatus = 'ok' | 'input_required' | 'tool_error' | ErrorCode | RpcErrorStatus;

/** The status of an `isError` result without an error code. */
export const UNCODED_TOOL_ERROR = 'tool_error';

/** What every `rpc_error:<code>` status starts with (for SQL over stored statuses). */
export const RPC_ERROR_PREFIX = 'rpc_error:';

/** The status (and endpoint outcome label) of a JSON-RPC error `code`. */
export function rpcErrorStatus(code: number): RpcErrorStatus {
  return `${RPC_ERROR_PREFIX}${code}`;
}

/** The JSON-RPC code of an `rpc_error:<code>` status, else undefined. */
export function rpcErrorCodeOf(status: string): number | undefined {
  if (!status.startsWith(RPC_ERROR_PREFIX)) return undefined;
  const code = Number(status.slice(RPC_ERROR_PREFIX.length));
  return Number.isInteger(code) ? code : undefined;
}

/** Statuses of a call that ran, or asked its person first: not errors. */
export const TOOL_CALL_SUCCESS_STATUSES = ['ok', 'input_required'] as const;

/**
 * Statuses of calls refused before they ran: an authorization check, a confirmation the client
 * cannot ask for or already used, or an approval still waiting or lapsed. Not `USER_DECLINED` nor
 * `approval_denied`: a person was asked and answered no, a tool error like any other answer the
 * caller can act on.
 */
export const TOOL_CALL_REFUSAL_STATUSES: readonly ErrorCode[] = [
  ...AUTHORIZATION_CODES,
  ...CONFIRMATION_REFUSAL_CODES.filter((code) => code !== 'USER_DECLINED'),
  'approval_pending',
  'approval_expired',
];

/** Whether the call answered with an `isError` result (a code), not success nor JSON-RPC error. */
export function isErrorResultStatus(status: string): boolean {
  return status === UNCODED_TOOL_ERROR || isErrorCode(status);
}
