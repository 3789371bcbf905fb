import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
  type ClientOptions,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { capturingFetch, parseMaybe, textJsonOf, type Exchange, type Json } from './mcp-peers.js';

/**
 * Shared by the confirmation, authorization and race tests: raw `/mcp` requests in both eras
 * (any base URL, so a second instance can be addressed) and real SDK clients that answer
 * `elicitation/create`. The records they act on, the ledger's rows and two replicas of one
 * database are confirmation-records.ts.
 */

export const MODERN_VERSION = '2026-07-28';
/** What a 2026-07-28 client that can show a confirmation form declares. */
export const FORM_ELICITATION = { elicitation: { form: {} } } as const;
const ACCEPT = 'application/json, text/event-stream';

export interface WireResponse {
  status: number;
  headers: Headers;
  body: Json;
}

export interface ModernOptions {
  id?: number | string;
  /** `io.modelcontextprotocol/clientCapabilities` of this one request (default: form elicitation). */
  capabilities?: Record<string, unknown>;
  clientName?: string;
}

let nextId = 1;

/** POST /mcp with a bearer secret (or none). */
export async function postMcp(
  baseUrl: string,
  secret: string | null,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<WireResponse> {
  const h: Record<string, string> = {
    'content-type': 'application/json',
    accept: ACCEPT,
    ...headers,
  };
  if (secret !== null) h.authorization = `Bearer ${secret}`;
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: h,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: parseMaybe(await res.text()) };
}

/**
 * A 2026-07-28 request as a conforming client sends it: `MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name` (a tool's or prompt's name, a resource's URI, a task's id) headers and the three
 * reserved `_meta` keys.
 */
export function modernRequest(
  baseUrl: string,
  secret: string | null,
  method: string,
  params: Record<string, unknown>,
  options: ModernOptions = {},
): Promise<WireResponse> {
  const name = [params.name, params.uri, params.taskId].find(
    (v): v is string => typeof v === 'string',
  );
  const body = {
    jsonrpc: '2.0',
    id: options.id ?? nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
        'io.modelcontextprotocol/clientInfo': {
          name: options.clientName ?? 'raw-e2e',
          version: '1.0.0',
        },
        'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? FORM_ELICITATION,
      },
    },
  };
  return postMcp(baseUrl, secret, body, {
    'mcp-protocol-version': MODERN_VERSION,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  });
}

/** A 2025-era request after the (stateless) handshake: only the `MCP-Protocol-Version` header. */
export function legacyRequest(
  baseUrl: string,
  secret: string | null,
  method: string,
  params: Record<string, unknown>,
  version = '2025-11-25',
): Promise<WireResponse> {
  return postMcp(
    baseUrl,
    secret,
    { jsonrpc: '2.0', id: nextId++, method, params },
    { 'mcp-protocol-version': version },
  );
}

/** A `tools/call` on 2026-07-28; `retry` adds the MRTR retry members. */
export function modernToolCall(
  baseUrl: string,
  secret: string,
  name: string,
  args: Record<string, unknown>,
  retry: { requestState?: string; inputResponses?: unknown } = {},
  options: ModernOptions = {},
): Promise<WireResponse> {
  return modernRequest(baseUrl, secret, 'tools/call', { name, arguments: args, ...retry }, options);
}

/** The answer a person gives in the confirmation form, keyed as the server asked. */
export function answer(
  key: string,
  action: 'accept' | 'decline' | 'cancel',
  confirm = true,
): Record<string, unknown> {
  return { [key]: action === 'accept' ? { action, content: { confirm } } : { action } };
}

/**
 * The 2026-07-28 retry of a destructive call with the person's answer (`accept` unless said) to
 * the question it was `asked`: its `requestState`, and the answer under its input key.
 */
export function answerToolCall(
  url: string,
  token: string,
  tool: string,
  args: Record<string, unknown>,
  asked: { key: string; requestState: string },
  action: 'accept' | 'decline' = 'accept',
): Promise<WireResponse> {
  return modernToolCall(url, token, tool, args, {
    requestState: asked.requestState,
    inputResponses: answer(asked.key, action),
  });
}

/** A server the demo owner can call: a test server or a replica of it. */
export interface OwnedServer {
  url: string;
  tokens: { owner: string };
}

/** The demo owner's 2026-07-28 delete of portal user `id` on `server`; `retry`: the MRTR members. */
export function deletePortalUser(
  server: OwnedServer,
  id: string,
  retry: { requestState?: string; inputResponses?: unknown } = {},
  options: ModernOptions = {},
): Promise<WireResponse> {
  return modernToolCall(
    server.url,
    server.tokens.owner,
    'delete_portal_user',
    { id },
    retry,
    options,
  );
}

/** The demo owner's answer (`accept` unless said) on `server` to `asked` about deleting `id`. */
export function answerDelete(
  server: OwnedServer,
  id: string,
  asked: { key: string; requestState: string },
  action?: 'accept' | 'decline',
): Promise<WireResponse> {
  return answerToolCall(
    server.url,
    server.tokens.owner,
    'delete_portal_user',
    { id },
    asked,
    action,
  );
}

/**
 * Asserts an isError result with envelope `code` in a 200 answer (no JSON-RPC error, a complete
 * result, no structured content); returns the result.
 */
export function expectToolError(res: WireResponse, code: string): Json {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined });
  const result: Json = res.body.result;
  expect(result.resultType).toBe('complete');
  expect(result.isError).toBe(true);
  expect(result).not.toHaveProperty('structuredContent');
  expect(textJsonOf(result)).toMatchObject({ error: { code } });
  return result;
}

/** An `input_required` result's single input key and its `requestState`. */
export function askedOf(res: WireResponse): {
  key: string;
  request: Json;
  requestState: string;
} {
  const result: Json = res.body?.result;
  if (result?.resultType !== 'input_required')
    throw new Error(`expected input_required, got ${JSON.stringify(res.body)}`);
  const keys = Object.keys(result.inputRequests ?? {});
  if (keys.length !== 1 || typeof result.requestState !== 'string')
    throw new Error(`expected one input request and a requestState: ${JSON.stringify(result)}`);
  return {
    key: keys[0],
    request: result.inputRequests[keys[0]],
    requestState: result.requestState,
  };
}

/** The confirmation id carried inside a `requestState` (its payload is base64url JSON). */
export function confirmationIdOf(requestState: string): string {
  const payload: Json = JSON.parse(
    Buffer.from(requestState.slice(0, requestState.indexOf('.')), 'base64url').toString('utf8'),
  );
  return String(payload.cid);
}

/** An isError result's envelope code (from the text block, which every revision carries). */
export function toolErrorCode(result: Json): string | undefined {
  if (result?.isError !== true) return undefined;
  const text: Json = result.content?.find((c: Json) => c.type === 'text')?.text;
  return JSON.parse(text).error.code;
}

// ---------------------------------------------------------------------------------------------
// Real SDK clients that answer the confirmation form

export type ElicitAnswer =
  | { action: 'accept'; content: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' }
  | { action: 'cancel' };

export interface ConfirmingPeer {
  /** Every `elicitation/create` params the client was asked to show. */
  readonly asked: Json[];
  readonly exchanges: Exchange[];
  callTool(name: string, args: Record<string, unknown>): Promise<Json>;
  close(): Promise<void>;
}

export type ConfirmingPeerKind = 'v2-2026-07-28' | 'v2-2025-06-18' | 'v1';

/**
 * A real client that declares form elicitation and answers every `elicitation/create` with
 * `respond` (called with the params it was asked to show).
 */
export async function connectConfirmingPeer(
  kind: ConfirmingPeerKind,
  mcpUrl: string,
  secret: string,
  respond: (params: Json) => ElicitAnswer | Promise<ElicitAnswer>,
  clientName = 'confirm-e2e',
): Promise<ConfirmingPeer> {
  const { fetch, exchanges } = capturingFetch();
  const asked: Json[] = [];
  const info = { name: clientName, version: '1.0.0' };
  const requestInit = { headers: { authorization: `Bearer ${secret}` } };
  if (kind === 'v1') {
    const client = new ClientV1(info, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return respond(request.params);
    });
    await client.connect(new TransportV1(new URL(mcpUrl), { fetch, requestInit }));
    return {
      asked,
      exchanges,
      callTool: (name, args) => client.callTool({ name, arguments: args }),
      close: () => client.close(),
    };
  }
  const options: ClientOptions =
    kind === 'v2-2026-07-28'
      ? {
          capabilities: FORM_ELICITATION,
          versionNegotiation: { mode: { pin: MODERN_VERSION } },
        }
      : {
          capabilities: { elicitation: {} },
          versionNegotiation: { mode: 'legacy' },
          supportedProtocolVersions: ['2025-06-18'],
        };
  const client = new ClientV2(info, options);
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params);
    return respond(request.params);
  });
  await client.connect(new TransportV2(new URL(mcpUrl), { fetch, requestInit }));
  return {
    asked,
    exchanges,
    callTool: (name, args) => client.callTool({ name, arguments: args }),
    close: () => client.close(),
  };
}

/** Any control, format (bidi, zero-width), separator-line or lone surrogate character. */
export const UNSAFE_PROMPT_CHARACTERS = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
