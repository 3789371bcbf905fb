import { parseMaybe, type Json } from './mcp-peers.js';

/**
 * `tools/call` over plain HTTP, each with the request id it is sent with (`x-request-id`), so a
 * test can find that call's log line, history row and audit event.
 */

const ACCEPT = 'application/json, text/event-stream';

export interface RawResponse {
  status: number;
  headers: Headers;
  body: Json;
}

export interface CallOptions {
  requestId: string;
  /** Extra `params` next to `name` and `arguments` (e.g. `requestState`, `inputResponses`). */
  params?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Extra `_meta` entries (e.g. `traceparent`) beside the protocol's own. */
  meta?: Record<string, unknown>;
}

/** A 2026-07-28 `tools/call` (per-request `_meta`, `Mcp-*` headers), declaring form elicitation. */
export async function modernToolCall(
  baseUrl: string,
  token: string,
  clientName: string,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions,
): Promise<RawResponse> {
  return post(
    baseUrl,
    token,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        ...options.params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: clientName, version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
          ...options.meta,
        },
      },
    },
    {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      'x-request-id': options.requestId,
      ...options.headers,
    },
  );
}

/** A 2025 `tools/call` (stateless: no session, the revision in `MCP-Protocol-Version`). */
export async function legacyToolCall(
  baseUrl: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions & { protocolVersion?: string },
): Promise<RawResponse> {
  return post(
    baseUrl,
    token,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    {
      'mcp-protocol-version': options.protocolVersion ?? '2025-06-18',
      'x-request-id': options.requestId,
      ...options.headers,
    },
  );
}

export interface InitializeOptions {
  /** Default 2025-06-18. */
  protocolVersion?: string;
  /** Default none. */
  capabilities?: Record<string, unknown>;
  /** `clientInfo.version`, default 1.0.0. */
  clientVersion?: string;
}

/** A 2025 `initialize` message from `clientName`. */
export function initializeMessage(clientName: string, options: InitializeOptions = {}): object {
  const clientInfo = { name: clientName, version: options.clientVersion ?? '1.0.0' };
  const params = {
    protocolVersion: options.protocolVersion ?? '2025-06-18',
    capabilities: options.capabilities ?? {},
    clientInfo,
  };
  return { jsonrpc: '2.0', id: 1, method: 'initialize', params };
}

/** A 2025 `initialize` ({@link initializeMessage}); the answer carries the signed `Mcp-Session-Id`. */
export async function legacyInitialize(
  baseUrl: string,
  token: string,
  clientName: string,
  options: InitializeOptions = {},
): Promise<RawResponse> {
  return post(baseUrl, token, initializeMessage(clientName, options), {});
}

/** One JSON-RPC message POSTed to `/mcp` as it is, with the given extra headers. */
export async function post(
  baseUrl: string,
  token: string,
  body: object,
  headers: Record<string, string>,
): Promise<RawResponse> {
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      authorization: `Bearer ${token}`,
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: parseMaybe(await res.text()) };
}

/** The JSON in a tool result's first text block. */
export function resultJson(body: Json): Json {
  const block: Json = body.result.content.find((c: Json) => c.type === 'text');
  return JSON.parse(block.text);
}

/** Prometheus text → `name{labels}` → value, labels sorted by name. */
export function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (match === null) continue;
    const [, name, labels = '', value] = match;
    const pairs = [...labels.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)]
      .map(([, k, v]) => `${k}="${v}"`)
      .sort();
    samples.set(`${name}{${pairs.join(',')}}`, Number(value));
  }
  return samples;
}

/** The key {@link parseMetrics} uses for a sample. */
export function sampleKey(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort();
  return `${name}{${pairs.join(',')}}`;
}
