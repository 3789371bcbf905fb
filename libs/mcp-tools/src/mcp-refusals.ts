import type { AccessPolicy } from '@app/access';
import { isJsonObject, textRefusal } from '@app/common';
import { AUTHORIZATION_CODES, isErrorCode, toEnvelope, type ErrorEnvelope } from '@app/errors';
import { INVALID_PARAMS, McpError } from '@app/mcp-transport';

/*
 * How an MCP call is refused, decided here for every handler. A tool answers with a result:
 * `isError: true` carrying the API's error envelope (see `errorResult`), whatever the reason, so
 * the model reads who can fix it. `resources/read`, `prompts/get` and `completion/complete` have
 * no `isError`; the four authorization outcomes are a JSON-RPC error there
 * ({@link AUTHORIZATION_REFUSED}, the envelope as `data`), and anything else the REST answer says
 * is the handler's to map (e.g. not found).
 */

/**
 * JSON-RPC error code for an authorization refusal on `resources/read`, `prompts/get` and
 * `completion/complete`. It sits in the application range, outside -32768..-32000 (reserved by
 * JSON-RPC, and -32020..-32099 by MCP), so no client mistakes it for a protocol code; 403 echoes
 * the REST status. `message` is the envelope's message (it names who can fix it) and `data` is the
 * whole API envelope (`{"error":{"code":"insufficient_scope",…}}`), the same vocabulary tools
 * return in `isError`.
 */
export const AUTHORIZATION_REFUSED = -31403;

/**
 * JSON-RPC error code of a task that waited for an admin's approval and ended without running:
 * denied or expired (`failed`, the error inlined in `tasks/get`). In the application range like
 * {@link AUTHORIZATION_REFUSED}; 410 echoes that this call will never run. `message` is the
 * envelope's message and `data` the whole API envelope (`approval_denied` with the reason, or
 * `approval_expired`), as a client without tasks reads it in `isError`.
 */
export const APPROVAL_TASK_FAILED = -31410;

/**
 * The four authorization outcomes (each names who can fix it: the client, the person, an admin, or
 * nobody), as their envelope codes.
 */
const AUTHORIZATION: ReadonlySet<string> = new Set(AUTHORIZATION_CODES);

/** A REST body in the API's error envelope (a known code and a message), or undefined. */
export function envelopeOf(body: unknown): ErrorEnvelope | undefined {
  if (!isJsonObject(body) || !isJsonObject(body.error)) return undefined;
  const { code, message, details } = body.error;
  return isErrorCode(code) && typeof message === 'string'
    ? toEnvelope(code, message, details)
    : undefined;
}

/** A REST body that is one of the four authorization refusals, as its envelope. */
export function authorizationEnvelopeOf(body: unknown): ErrorEnvelope | undefined {
  const envelope = envelopeOf(body);
  return envelope !== undefined && AUTHORIZATION.has(envelope.error.code) ? envelope : undefined;
}

/** The -31403 protocol error for an authorization refusal (handlers without `isError`). */
export function authorizationRefused(envelope: ErrorEnvelope): McpError {
  return new McpError(AUTHORIZATION_REFUSED, envelope.error.message, envelope);
}

/**
 * Goes on only if the caller may reach what `requirement` guards (a resource, a prompt, a
 * completion's source); otherwise throws the access policy's refusal as
 * {@link authorizationRefused}. Every handler without `isError` asks here, so none can evaluate a
 * refusal and forget to throw it.
 */
export function assertAllowed(
  policy: AccessPolicy,
  ...[principal, requirement]: Parameters<AccessPolicy['evaluate']>
): void {
  const refusal = policy.evaluate(principal, requirement);
  if (refusal !== null) throw authorizationRefused(refusal.toEnvelope());
}

/**
 * -32602 naming `what` when a string a client sent in a resource URI, a prompt argument or a
 * completion argument is not acceptable text (U+0000, a lone surrogate): the REST API's own rule
 * (a tool's arguments meet it in the endpoint's validation), checked before anything looks at it.
 */
export function assertReadableParam(what: string, value: string): void {
  const why = textRefusal(value);
  if (why !== undefined)
    throw new McpError(INVALID_PARAMS, `Invalid params: ${what} must not contain ${why}`, {
      field: what,
    });
}

/**
 * The non-empty, readable string `params[key]` (a prompt's name, a resource's URI), or -32602
 * saying that `what` is required, or what `key` must not contain (see {@link assertReadableParam}).
 */
export function requiredParam(params: Record<string, unknown>, key: string, what: string): string {
  const value = params[key];
  if (typeof value !== 'string' || value === '')
    throw new McpError(INVALID_PARAMS, `Invalid params: ${what} is required`);
  assertReadableParam(key, value);
  return value;
}
