// oxlint-disable typescript/no-unsafe-type-assertion, typescript/no-unsafe-class-instance-assignment -- test doubles stand in for the Nest providers the factory receives
import { describe, expect, it, vi } from 'vitest';
import type { McpHandlerOutcome } from '@app/mcp-transport';
import {
  ToolCatalog,
  type CompletionsHandler,
  type McpCallExtra,
  type PromptsHandler,
  type ResourcesHandler,
  type TasksHandler,
  type ToolExecutor,
} from '@app/mcp-tools';
import { MetricsService } from '@app/metrics';
import { createMcpEndpoint } from './mcp-endpoint.factory.js';
import { McpRequestMetrics } from './mcp-request.metrics.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const extra = { principal: {}, requestId: 'req-9' } as unknown as McpCallExtra;

function setup(
  call: () => Promise<McpHandlerOutcome>,
  catalog = {
    listResult: () => Object.freeze({ tools: [{ name: 'get_current_context' }] }),
    paramHeaders: () => undefined,
    get: () => undefined,
    extension: () => undefined,
  } as unknown as ToolCatalog,
) {
  const service = new MetricsService();
  const metrics = { recordMcpRequest: vi.spyOn(service, 'recordMcpRequest') };
  const requestMetrics = new McpRequestMetrics(service, catalog);
  const logger = { error: vi.fn<(details: object, message: string) => void>() };
  const endpoint = createMcpEndpoint({
    parts: {
      catalog,
      executor: { call: vi.fn<() => Promise<McpHandlerOutcome>>(call) } as unknown as ToolExecutor,
      resources: {} as ResourcesHandler,
      prompts: {} as PromptsHandler,
      completions: {} as CompletionsHandler,
      tasks: {} as TasksHandler,
    },
    requestMetrics,
    logger,
    version: '1.2.3',
  });
  const modern = (
    id: number,
    method: string,
    params: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) =>
    endpoint.handle(
      {
        headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } }),
        requestId: 'req-9',
      },
      extra,
    );
  const legacy = (id: number, method: string, version: string) =>
    endpoint.handle(
      {
        headers: { 'mcp-protocol-version': version },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: {} }),
        requestId: 'req-9',
      },
      extra,
    );
  return { endpoint, metrics, logger, modern, legacy };
}

describe('createMcpEndpoint', () => {
  it('identifies itself and gives the model its instructions (server/discover)', async () => {
    const { modern } = setup(async () => ({ kind: 'complete', result: { content: [] } }));
    const res = await modern(1, 'server/discover');
    const body = JSON.parse(res.body!) as { result: Record<string, unknown> };
    expect(body.result).toMatchObject({
      capabilities: { tools: {}, resources: {}, prompts: {}, completions: {} },
      _meta: {
        'io.modelcontextprotocol/serverInfo': {
          name: 'platform-mcp',
          version: '1.2.3',
          title: 'Platform',
        },
      },
    });
    expect(body.result.capabilities).not.toHaveProperty('logging');
    expect(body.result.instructions).toMatch(/isError: true/);
    expect(body.result.instructions).toMatch(/confirm/);
  });

  it('tools/list is public for five minutes (the same list for every token)', async () => {
    const { modern } = setup(async () => ({ kind: 'complete', result: {} }));
    const body = JSON.parse((await modern(2, 'tools/list')).body!) as {
      result: Record<string, unknown>;
    };
    expect(body.result).toMatchObject({
      tools: [{ name: 'get_current_context' }],
      ttlMs: 300_000,
      cacheScope: 'public',
    });
  });

  it('counts an isError tool result as tool_error, and logs an unexpected failure once with the request id', async () => {
    const { modern, metrics } = setup(async () => ({
      kind: 'complete',
      result: { content: [], isError: true },
    }));
    await modern(3, 'tools/call', { name: 'x' }, { 'mcp-name': 'x' });
    expect(metrics.recordMcpRequest).toHaveBeenCalledWith(
      '2026-07-28',
      'tools/call',
      'tool_error',
      expect.any(Number),
    );

    const failing = setup(async () => {
      throw new Error('db exploded: password=hunter2');
    });
    const res = await failing.modern(4, 'tools/call', { name: 'x' }, { 'mcp-name': 'x' });
    expect(JSON.parse(res.body!)).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32603, message: 'Internal error', data: { requestId: 'req-9' } },
    });
    expect(failing.logger.error).toHaveBeenCalledTimes(1);
    expect(failing.logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ requestId: 'req-9', method: 'tools/call' }),
      expect.any(String),
    );
    expect(failing.metrics.recordMcpRequest).toHaveBeenCalledWith(
      '2026-07-28',
      'tools/call',
      'internal_error',
      expect.any(Number),
    );
  });
});

describe('tools/list on the wire, every revision', () => {
  // docs/adr/0005: success-only output schemas, each result shape declared once.
  const { modern, legacy } = setup(
    async () => ({ kind: 'complete', result: {} }),
    new ToolCatalog(),
  );

  it('is under 20 KB, the whole JSON-RPC response included', async () => {
    const bodies = [
      (await modern(1, 'tools/list')).body!,
      ...(await Promise.all(
        ['2025-03-26', '2025-06-18', '2025-11-25'].map(
          async (v, i) => (await legacy(2 + i, 'tools/list', v)).body!,
        ),
      )),
    ];
    for (const body of bodies) {
      const tools = (JSON.parse(body) as { result: { tools: unknown[] } }).result.tools;
      expect(tools).toHaveLength(new ToolCatalog().names().length);
      expect(Buffer.byteLength(body)).toBeLessThan(20 * 1024);
    }
  });
});
