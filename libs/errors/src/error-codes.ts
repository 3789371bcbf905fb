/**
 * The closed vocabulary of error codes, with the HTTP status each one answers with on REST.
 * The MCP layer carries the same codes inside `isError` results; it never turns a status into a
 * JSON-RPC code.
 */
export const ERROR_STATUS = {
  // Resource and business codes: the caller's request is wrong or the business rule says no
  VALIDATION_ERROR: 422,
  NOT_FOUND: 404,
  CONFLICT: 409,
  DUPLICATE_ERROR: 409,
  BAD_REQUEST: 400,
  FORBIDDEN: 403,
  EXTERNAL_SERVICE_ERROR: 502,
  // Confirmation of destructive MCP tools (isError results only)
  USER_DECLINED: 409,
  confirmation_required: 409,
  confirmation_replayed: 409,
  confirmation_unavailable: 503,
  // Four-eyes approval of MCP tools (isError results only; ADR 0011)
  approval_pending: 409,
  approval_denied: 409,
  approval_expired: 409,
  // Authorization outcomes: each names who can fix it
  insufficient_scope: 403,
  insufficient_permission: 403,
  membership_inactive: 403,
  key_owner_not_member: 403,
  // Transport refusals (before a JSON-RPC message is read)
  UNAUTHENTICATED: 401,
  INVALID_TOKEN: 401,
  /** A DPoP-bound token came without a valid proof for its key (RFC 9449). */
  INVALID_DPOP_PROOF: 401,
  UNSUPPORTED_PROTOCOL_VERSION: 400,
  /** A 2025 `Mcp-Session-Id` this server did not issue (the client initializes again). */
  SESSION_NOT_FOUND: 404,
  ORIGIN_NOT_ALLOWED: 403,
  HOST_NOT_ALLOWED: 403,
  RATE_LIMITED: 429,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  HEADERS_TOO_LARGE: 431,
  REQUEST_TIMEOUT: 408,
  /** An `Expect` header other than `100-continue`. */
  EXPECTATION_FAILED: 417,
  UNSUPPORTED_MEDIA_TYPE: 415,
  NOT_ACCEPTABLE: 406,
  METHOD_NOT_ALLOWED: 405,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The four authorization outcomes (each names who can fix it: the client, the person, an admin, or nobody). */
export const AUTHORIZATION_CODES = [
  'key_owner_not_member',
  'membership_inactive',
  'insufficient_scope',
  'insufficient_permission',
] as const satisfies readonly ErrorCode[];

/** What a destructive MCP tool's confirmation can answer that keeps the tool from running. */
export const CONFIRMATION_REFUSAL_CODES = [
  'confirmation_required',
  'confirmation_replayed',
  'USER_DECLINED',
] as const satisfies readonly ErrorCode[];

/**
 * What a tool under the `approval` confirmation policy can answer instead of running: a request is
 * waiting for another admin (`approval_pending`), an admin denied it (`approval_denied`, with the
 * reason), or it lapsed before it was decided or used (`approval_expired`).
 */
export const APPROVAL_REFUSAL_CODES = [
  'approval_pending',
  'approval_denied',
  'approval_expired',
] as const satisfies readonly ErrorCode[];

/**
 * The codes an MCP tool's `isError` result carries: the REST API's own answers to the call, the
 * database not serving it in time, the confirmation's outcomes and the authorization refusals.
 * A test walks every catalogue tool's possible answers against this list.
 */
export const TOOL_RESULT_CODES = [
  'VALIDATION_ERROR',
  'NOT_FOUND',
  'CONFLICT',
  'DUPLICATE_ERROR',
  'BAD_REQUEST',
  'FORBIDDEN',
  'EXTERNAL_SERVICE_ERROR',
  // The database could not serve the call in time: an outage, not a bug of ours.
  'SERVICE_UNAVAILABLE',
  ...CONFIRMATION_REFUSAL_CODES,
  'confirmation_unavailable',
  ...APPROVAL_REFUSAL_CODES,
  ...AUTHORIZATION_CODES,
] as const satisfies readonly ErrorCode[];
export type ToolResultCode = (typeof TOOL_RESULT_CODES)[number];

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}
