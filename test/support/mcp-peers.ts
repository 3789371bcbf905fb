import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
  type ClientOptions,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** A JSON value as the tests read it: field by field, each field asserted with `expect`. */
// oxlint-disable-next-line typescript/no-explicit-any -- wire bodies and SDK results are read field by field
export type Json = any;

/** One HTTP exchange as the client's fetch saw it. */
export interface Exchange {
  method: string;
  url: string;
  requestHeaders: Headers;
  requestBody: Json;
  status: number;
  responseHeaders: Headers;
  responseBody: Json;
}

/** JSON text → value; anything that is not JSON stays text; an empty body is `undefined`. */
export function parseMaybe(text: string): Json {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A `fetch` that records every exchange (bodies parsed as JSON when they are JSON). */
export function capturingFetch(): { fetch: typeof fetch; exchanges: Exchange[] } {
  const exchanges: Exchange[] = [];
  const capture: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const requestText = request.body === null ? '' : await request.clone().text();
    const response = await fetch(request);
    const exchange: Exchange = {
      method: request.method,
      url: request.url,
      requestHeaders: request.headers,
      requestBody: parseMaybe(requestText),
      status: response.status,
      responseHeaders: response.headers,
      responseBody: undefined,
    };
    if (response.headers.get('content-type')?.startsWith('text/event-stream') === true) {
      // A stream may wait for the client (a 2025 request to it): hand it over now, record the
      // body (SSE text) when it ends.
      exchanges.push(exchange);
      void response
        .clone()
        .text()
        .then((text) => (exchange.responseBody = text));
      return response;
    }
    exchange.responseBody = parseMaybe(await response.clone().text());
    exchanges.push(exchange);
    return response;
  };
  return { fetch: capture, exchanges };
}

/** The calls the tests make, the same for the v1 and the v2 client. Results are read as JSON. */
export interface McpPeer {
  readonly exchanges: Exchange[];
  listTools(): Promise<Json>;
  callTool(name: string, args?: Record<string, unknown>): Promise<Json>;
  readResource(uri: string): Promise<Json>;
  listResources(): Promise<Json>;
  listResourceTemplates(): Promise<Json>;
  listPrompts(): Promise<Json>;
  getPrompt(name: string, args?: Record<string, string>): Promise<Json>;
  close(): Promise<void>;
}

export interface PeerSpec {
  label: string;
  /** The revision the connection must end up on. */
  protocolVersion: '2026-07-28' | '2025-11-25' | '2025-06-18' | '2025-03-26';
  connect(mcpUrl: string, token: string): Promise<McpPeer>;
}

/** The structural surface both SDK clients share. */
interface SdkClient {
  listTools(): Promise<unknown>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<unknown>;
  listResources(): Promise<unknown>;
  listResourceTemplates(): Promise<unknown>;
  listPrompts(): Promise<unknown>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<unknown>;
  close(): Promise<void>;
}

function wrap(client: SdkClient, exchanges: Exchange[]): McpPeer {
  return {
    exchanges,
    listTools: () => client.listTools(),
    callTool: (name, args) => client.callTool({ name, arguments: args }),
    readResource: (uri) => client.readResource({ uri }),
    listResources: () => client.listResources(),
    listResourceTemplates: () => client.listResourceTemplates(),
    listPrompts: () => client.listPrompts(),
    getPrompt: (name, args) => client.getPrompt({ name, arguments: args }),
    close: () => client.close(),
  };
}

const CLIENT_INFO = { name: 'platform-e2e', version: '1.0.0' };

function v2(
  label: string,
  protocolVersion: PeerSpec['protocolVersion'],
  options: ClientOptions,
): PeerSpec {
  return {
    label,
    protocolVersion,
    connect: async (mcpUrl, token) => {
      const { fetch, exchanges } = capturingFetch();
      const client = new ClientV2(CLIENT_INFO, options);
      const transport = new TransportV2(new URL(mcpUrl), {
        fetch,
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      });
      await client.connect(transport);
      return wrap(client, exchanges);
    },
  };
}

/** The peers of TESTING-WITH-PEERS.md: the v2 client in five configurations and the v1 client. */
export const PEERS: readonly PeerSpec[] = [
  v2('v2 client pinned to 2026-07-28', '2026-07-28', {
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  }),
  v2('v2 client in auto mode', '2026-07-28', { versionNegotiation: { mode: 'auto' } }),
  v2('v2 client in legacy mode', '2025-11-25', { versionNegotiation: { mode: 'legacy' } }),
  v2('v2 client pinned to 2025-06-18', '2025-06-18', {
    versionNegotiation: { mode: 'legacy' },
    supportedProtocolVersions: ['2025-06-18'],
  }),
  v2('v2 client pinned to 2025-03-26', '2025-03-26', {
    versionNegotiation: { mode: 'legacy' },
    supportedProtocolVersions: ['2025-03-26'],
  }),
  {
    label: 'v1 client (@modelcontextprotocol/sdk)',
    protocolVersion: '2025-11-25',
    connect: async (mcpUrl, token) => {
      const { fetch, exchanges } = capturingFetch();
      const client = new ClientV1(CLIENT_INFO);
      const transport = new TransportV1(new URL(mcpUrl), {
        fetch,
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      });
      await client.connect(transport);
      return wrap(client, exchanges);
    },
  },
];

/** The JSON-RPC error a client call rejected with (both SDKs expose `code`, `message`, `data`). */
export async function rpcErrorOf(
  promise: Promise<unknown>,
): Promise<{ code: number; message: string; data?: unknown }> {
  const outcome = await promise.then(
    (value) => ({ resolved: true as const, value }),
    (error: unknown) => ({ resolved: false as const, error }),
  );
  if (outcome.resolved)
    throw new Error(`expected a JSON-RPC error, got a result: ${JSON.stringify(outcome.value)}`);
  const { error } = outcome;
  if (
    typeof error !== 'object' ||
    error === null ||
    !('code' in error) ||
    typeof error.code !== 'number'
  )
    throw error;
  return {
    code: error.code,
    message: 'message' in error ? String(error.message) : '',
    data: 'data' in error ? error.data : undefined,
  };
}

/** The text of a tool result's first text block, parsed (every revision carries the JSON there). */
export function textJsonOf(result: Json): Json {
  const block: Json = result.content.find((c: Json) => c.type === 'text');
  return JSON.parse(block.text);
}
