import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { capturingFetch, type Exchange, type Json } from '../support/mcp-peers.js';

/**
 * The conformance fixtures (MCP_CONFORMANCE_FIXTURES) driven by the real SDK clients: content
 * types, progress and log messages on the call's SSE stream, and sampling and elicitation — as
 * requests on the stream in 2025 (the answer comes back as a new POST), as input_required in
 * 2026-07-28 (the client retries with inputResponses). Our own transport and executor serve them.
 */

interface FixturePeer {
  exchanges: Exchange[];
  logs: Json[];
  asked: string[];
  callTool(
    name: string,
    args?: Record<string, unknown>,
    onprogress?: (p: Json) => void,
  ): Promise<Json>;
  setLoggingLevel(level: 'debug' | 'info' | 'warning'): Promise<unknown>;
  close(): Promise<void>;
}

const INFO = { name: 'fixtures-e2e', version: '1.0.0' };
const SAMPLED = {
  role: 'assistant',
  content: { type: 'text', text: 'Paris' },
  model: 'test-model',
  stopReason: 'endTurn',
} as const;
const ELICITED = { action: 'accept', content: { response: 'yes please' } } as const;

type Kind = 'v2 pinned to 2026-07-28' | 'v2 in legacy mode (2025-11-25)' | 'v1 (2025-11-25)';

async function connect(kind: Kind, mcpUrl: string, secret: string): Promise<FixturePeer> {
  const { fetch, exchanges } = capturingFetch();
  const logs: Json[] = [];
  const asked: string[] = [];
  const requestInit = { headers: { authorization: `Bearer ${secret}` } };
  if (kind === 'v1 (2025-11-25)') {
    const client = new ClientV1(INFO, { capabilities: { sampling: {}, elicitation: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked.push('sampling/createMessage');
      return SAMPLED;
    });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked.push('elicitation/create');
      return ELICITED;
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
    });
    await client.connect(new TransportV1(new URL(mcpUrl), { fetch, requestInit }));
    return {
      exchanges,
      logs,
      asked,
      callTool: (name, args, onprogress) =>
        client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : {}),
      setLoggingLevel: (level) => client.setLoggingLevel(level),
      close: () => client.close(),
    };
  }
  const client = new ClientV2(INFO, {
    capabilities: { sampling: {}, elicitation: { form: {} } },
    versionNegotiation:
      kind === 'v2 pinned to 2026-07-28' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' },
  });
  client.setRequestHandler('sampling/createMessage', async () => {
    asked.push('sampling/createMessage');
    return SAMPLED;
  });
  client.setRequestHandler('elicitation/create', async () => {
    asked.push('elicitation/create');
    return ELICITED;
  });
  client.setNotificationHandler('notifications/message', (n) => {
    logs.push(n.params);
  });
  await client.connect(new TransportV2(new URL(mcpUrl), { fetch, requestInit }));
  // 2026-07-28 has no logging/setLevel: the level travels in each request's _meta.
  const modern = kind === 'v2 pinned to 2026-07-28';
  let logLevel: string | undefined;
  return {
    exchanges,
    logs,
    asked,
    callTool: (name, args, onprogress) =>
      client.callTool(
        {
          name,
          arguments: args,
          ...(modern && logLevel !== undefined
            ? { _meta: { 'io.modelcontextprotocol/logLevel': logLevel } }
            : {}),
        },
        onprogress ? { onprogress } : {},
      ),
    setLoggingLevel: async (level) => {
      if (modern) logLevel = level;
      else await client.setLoggingLevel(level);
    },
    close: () => client.close(),
  };
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ mcpConformanceFixtures: true });
});
afterAll(async () => t?.close());

describe.each([
  'v2 pinned to 2026-07-28',
  'v2 in legacy mode (2025-11-25)',
  'v1 (2025-11-25)',
] as const)('%s against the conformance fixtures', (kind) => {
  const modern = kind === 'v2 pinned to 2026-07-28';
  let peer: FixturePeer;
  beforeAll(async () => {
    peer = await connect(kind, `${t.url}/mcp`, t.tokens.owner);
  });
  afterAll(async () => peer?.close());

  it('every content type arrives as sent', async () => {
    expect((await peer.callTool('test_image_content')).content).toEqual([
      { type: 'image', data: expect.stringMatching(/^iVBOR/), mimeType: 'image/png' },
    ]);
    expect((await peer.callTool('test_audio_content')).content).toEqual([
      { type: 'audio', data: expect.stringMatching(/^UklGR/), mimeType: 'audio/wav' },
    ]);
    const mixed: Json = await peer.callTool('test_multiple_content_types');
    expect(mixed.content.map((c: Json) => c.type)).toEqual(['text', 'image', 'resource']);
    const failed: Json = await peer.callTool('test_error_handling');
    expect(failed.isError).toBe(true);
  });

  it('progress arrives on the call’s SSE stream before the result', async () => {
    const seen: Json[] = [];
    const result: Json = await peer.callTool('test_tool_with_progress', {}, (p) => seen.push(p));
    expect(seen.map((p) => p.progress)).toEqual([0, 50, 100]);
    expect(seen.every((p) => p.total === 100)).toBe(true);
    const call = peer.exchanges.findLast((e) => e.requestBody?.method === 'tools/call');
    expect(call?.status).toBe(200);
    expect(result.content[0].text).not.toBe('no token');
  });

  it('log messages arrive once the client set a level, none before', async () => {
    peer.logs.length = 0;
    await peer.callTool('test_tool_with_logging');
    expect(peer.logs).toEqual([]);
    await peer.setLoggingLevel('info');
    await peer.callTool('test_tool_with_logging');
    expect(peer.logs.map((l) => l.data)).toEqual([
      'Tool execution started',
      'Tool processing data',
      'Tool execution completed',
    ]);
  });

  it('sampling and elicitation reach the client’s handlers and their answers the tool', async () => {
    peer.asked.length = 0;
    const sampled: Json = await peer.callTool('test_sampling', { prompt: 'Capital of France?' });
    expect(sampled.content[0].text).toBe('LLM response: Paris');
    const elicited: Json = await peer.callTool('test_elicitation', { message: 'Proceed?' });
    expect(elicited.content[0].text).toBe(
      'User response: action=accept, content={"response":"yes please"}',
    );
    expect(peer.asked).toEqual(['sampling/createMessage', 'elicitation/create']);
    const calls = peer.exchanges.filter((e) => e.requestBody?.method === 'tools/call').slice(-4);
    // 2026-07-28: input_required, then the retry with inputResponses (two plain POSTs per call).
    // 2025: the request went out on the call's stream; the client POSTed its answer (202).
    const answers = peer.exchanges.filter(
      (e) => e.requestBody !== undefined && e.requestBody.method === undefined,
    );
    expect(
      modern
        ? calls.map((c) => c.responseBody?.result?.resultType)
        : answers.slice(-2).map((a) => a.status),
    ).toEqual(modern ? ['input_required', 'complete', 'input_required', 'complete'] : [202, 202]);
  });
});
