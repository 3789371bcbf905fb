/**
 * JSON-RPC 2.0 framing: parse a POST body once and say what it is; write responses.
 * Single messages only: this product rejects batches in every revision (even 2025-03-26).
 */
import { isJsonObject } from '@app/common';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
import type { JsonRpcId } from './mcp-endpoint.types.js';
import { INVALID_REQUEST, PARSE_ERROR } from './mcp-protocol.constants.js';

export type JsonRpcMessage =
  | { kind: 'request'; id: JsonRpcId; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'notification'; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'response'; id: JsonRpcId | null; result?: unknown; error?: unknown }
  | { kind: 'invalid'; id: JsonRpcId | null; code: number; message: string };

function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || Number.isInteger(value);
}

function invalid(id: JsonRpcId | null, message: string): JsonRpcMessage {
  return { kind: 'invalid', id, code: INVALID_REQUEST, message };
}

const PARSE_FAILURE: JsonRpcMessage = {
  kind: 'invalid',
  id: null,
  code: PARSE_ERROR,
  message: 'Parse error',
};
const BATCH: JsonRpcMessage = invalid(null, 'Invalid Request: JSON-RPC batches are not supported');
const NOT_AN_OBJECT: JsonRpcMessage = invalid(null, 'Invalid Request');
const TOO_DEEP: JsonRpcMessage = invalid(
  null,
  `Invalid Request: the message nests deeper than ${MAX_JSON_DEPTH} levels`,
);

/**
 * Parses `body` (exactly one `JSON.parse`, after a depth scan) and classifies the message. Never
 * throws.
 */
export function parseJsonRpcMessage(body: string): JsonRpcMessage {
  if (exceedsJsonDepth(body)) return TOO_DEEP;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return PARSE_FAILURE;
  }
  if (Array.isArray(value)) return BATCH;
  if (!isJsonObject(value)) return NOT_AN_OBJECT;

  const rawId = value.id;
  const echoId = isJsonRpcId(rawId) ? rawId : null;
  if (value.jsonrpc !== '2.0') return invalid(echoId, 'Invalid Request: jsonrpc must be "2.0"');

  const method = value.method;
  if (method === undefined) {
    if (rawId !== undefined && (value.result !== undefined || value.error !== undefined)) {
      return { kind: 'response', id: echoId, result: value.result, error: value.error };
    }
    return invalid(echoId, 'Invalid Request: method is required');
  }
  if (typeof method !== 'string')
    return invalid(echoId, 'Invalid Request: method must be a string');
  if (rawId !== undefined && echoId === null) {
    return invalid(null, 'Invalid Request: id must be a string or an integer');
  }
  const params = value.params;
  if (params !== undefined && !isJsonObject(params)) {
    return invalid(echoId, 'Invalid Request: params must be an object');
  }
  return echoId === null
    ? { kind: 'notification', method, params }
    : { kind: 'request', id: echoId, method, params };
}

export function resultBody(id: JsonRpcId, result: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result });
}

/** For results serialised once at construction (discover, initialize): no per-request stringify. */
export function preSerializedResultBody(id: JsonRpcId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
}

export function errorBody(
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
): string {
  const error = data === undefined ? { code, message } : { code, message, data };
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}
