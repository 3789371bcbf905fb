import { isJsonObject } from '@app/common';
import { trimOws } from './http-headers.util.js';
import { normalizeClientString } from '@app/common';
import { errorBody, preSerializedResultBody } from './json-rpc.codec.js';
import type {
  Era,
  JsonRpcId,
  McpClientInfo,
  McpHttpRequest,
  McpHttpResponse,
  McpOutcomeLabel,
} from './mcp-endpoint.types.js';
import {
  HEADER_MISMATCH,
  INVALID_REQUEST,
  isSupportedProtocolVersion,
  KNOWN_METHOD_LABELS,
  METHOD_NOT_FOUND,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  PARSE_ERROR,
  UNSUPPORTED_PROTOCOL_VERSION,
} from './mcp-protocol.constants.js';
import { LOGGING_LEVEL_ORDER, type RequestChannel } from './request-channel.js';
import { rpcErrorStatus } from './tool-call-status.js';

/*
 * What both eras of the endpoint share: how a request is labelled for `observe`, and how an answer
 * is built (the reply builder). Every JSON-RPC error the endpoint writes itself goes through
 * {@link reply}.error, so its HTTP status follows one rule ({@link statusForCode}).
 */

export const UNKNOWN = 'unknown';
export const HEADER_PROTOCOL_VERSION = 'mcp-protocol-version';
export const HEADER_METHOD = 'mcp-method';
export const HEADER_NAME = 'mcp-name';
export const HEADER_SESSION_ID = 'mcp-session-id';
export const EMPTY_RESULT_JSON = '{}';
export const LOGGING_LEVEL_LIST = LOGGING_LEVEL_ORDER.join(', ');

/** Client-supplied text echoed in error messages is cut to this many characters. */
const ECHO_LIMIT = 128;

export function echo(value: string): string {
  return value.length <= ECHO_LIMIT ? value : `${value.slice(0, ECHO_LIMIT)}…`;
}

/**
 * -32601 for a method this era does not serve. A method this server serves in the other era says
 * so and what to send instead: a 2026-only method reached the 2025 era because the request lacked
 * the 2026 headers and `_meta`, which a bare "not found" does not tell the person reading it.
 */
export function methodNotFound(
  to: RequestReplyTo,
  method: string,
  otherEraHints: ReadonlyMap<string, string>,
): Handled {
  const hint = otherEraHints.get(method);
  const message =
    hint === undefined ? `Method not found: ${echo(method)}` : `Method not found: ${hint}`;
  return reply.error(to, METHOD_NOT_FOUND, message);
}

export function methodLabel(method: string): string {
  return KNOWN_METHOD_LABELS.has(method) ? method : UNKNOWN;
}

export function versionLabel(version: string | undefined): string {
  return version !== undefined && isSupportedProtocolVersion(version) ? version : UNKNOWN;
}

/** The revision a request's MCP-Protocol-Version header names, as a label. */
export function headerVersionLabel(headers: McpHttpRequest['headers'], absent: string): string {
  const raw = headers[HEADER_PROTOCOL_VERSION];
  return raw === undefined ? absent : versionLabel(trimOws(raw));
}

/**
 * A client's `clientInfo` as the handlers (and the audit trail, history and logs behind them) see
 * it: the name and version normalised at this edge ({@link normalizeClientString}), nothing else
 * the client put there; absent when there is no usable name.
 */
export function clientInfoOf(value: unknown): McpClientInfo | undefined {
  if (!isJsonObject(value) || typeof value.name !== 'string') return undefined;
  const name = normalizeClientString(value.name);
  if (name === '') return undefined;
  return typeof value.version === 'string'
    ? { name, version: normalizeClientString(value.version) }
    : { name };
}

/** A response plus the labels `observe` reports for it. */
export interface Handled {
  response: McpHttpResponse;
  era: Era;
  protocolVersion: string;
  method: string;
  outcome: McpOutcomeLabel;
  /** A `tools/call` answered with an `isError` result (see `McpObservation.toolError`). */
  toolError?: boolean;
  /** The handler's channel, when it ran: if it opened a stream, the response goes there. */
  channel?: RequestChannel;
}

/** Whom an answer is for: the labels it is observed under, and the JSON-RPC id it answers. */
export interface ReplyTo {
  era: Era;
  protocolVersion: string;
  method: string;
  id: JsonRpcId | null;
}

/** Whom the answer to a request is for (a request always has an id). */
export type RequestReplyTo = ReplyTo & { id: JsonRpcId };

export function jsonResponse(status: number, body: string): McpHttpResponse {
  return { status, headers: { 'content-type': 'application/json' }, body };
}

/**
 * HTTP status of a JSON-RPC error. Framing errors are 400 in both eras. 2026-07-28: -32601 is 404
 * and the header/capability/version codes are 400; every other JSON-RPC error is 200 (the request
 * was understood; the answer is the error).
 */
export function statusForCode(era: Era, code: number): number {
  if (code === PARSE_ERROR || code === INVALID_REQUEST) return 400;
  if (era === 'legacy') return 200;
  if (code === METHOD_NOT_FOUND) return 404;
  if (
    code === HEADER_MISMATCH ||
    code === MISSING_REQUIRED_CLIENT_CAPABILITY ||
    code === UNSUPPORTED_PROTOCOL_VERSION
  ) {
    return 400;
  }
  return 200;
}

export const reply = {
  /** 200 with a result whose JSON is already rendered. */
  result(to: RequestReplyTo, resultJson: string): Handled {
    return handled(to, jsonResponse(200, preSerializedResultBody(to.id, resultJson)), 'ok');
  },

  /**
   * A JSON-RPC error. The status is {@link statusForCode}'s unless the step that refuses says
   * otherwise (2026-07-28 refuses a request without the `_meta` it needs with 400).
   */
  error(
    to: ReplyTo,
    code: number,
    message: string,
    options: { data?: unknown; status?: number } = {},
  ): Handled {
    const status = options.status ?? statusForCode(to.era, code);
    return handled(
      to,
      jsonResponse(status, errorBody(to.id, code, message, options.data)),
      rpcErrorStatus(code),
    );
  },

  /** 202 with no body: a notification, or a client's answer to one of our requests. */
  accepted(to: Omit<ReplyTo, 'id'>): Handled {
    return handled({ ...to, id: null }, { status: 202, headers: {} }, 'ok');
  },

  /**
   * A transport refusal: plain HTTP with the platform API's error envelope, not a JSON-RPC error,
   * because the request never reached a JSON-RPC layer that could answer it.
   */
  refusal(
    to: Omit<ReplyTo, 'id'>,
    status: number,
    error: { code: string; message: string; details?: unknown },
  ): Handled {
    return handled(
      { ...to, id: null },
      jsonResponse(status, JSON.stringify({ error })),
      `http_${status}`,
    );
  },
};

function handled(to: ReplyTo, response: McpHttpResponse, outcome: McpOutcomeLabel): Handled {
  return {
    response,
    era: to.era,
    protocolVersion: to.protocolVersion,
    method: to.method,
    outcome,
  };
}
