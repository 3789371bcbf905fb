import { describe, expect, it, vi } from 'vitest';
import type { McpObservation } from '@app/mcp-transport';
import { MetricsService } from '@app/metrics';
import type { ToolCatalog } from '@app/mcp-tools';
import { McpRequestMetrics } from './mcp-request.metrics.js';

/** A registry that knows one tool. */
// oxlint-disable-next-line typescript/no-unsafe-type-assertion -- a test double for the Nest provider
const catalog = {
  get: (name: string) => (name === 'list_accounts' ? {} : undefined),
  extension: () => undefined,
} as unknown as ToolCatalog;

function setup() {
  const service = new MetricsService();
  const metrics = {
    recordMcpRequest: vi.spyOn(service, 'recordMcpRequest'),
    recordTransportRejection: vi.spyOn(service, 'recordTransportRejection'),
    recordMcpServerOperation: vi.spyOn(service, 'recordMcpServerOperation'),
  };
  return { metrics, observer: new McpRequestMetrics(service, catalog) };
}

const event = (over: Partial<McpObservation>): McpObservation => ({
  era: 'modern',
  protocolVersion: '2026-07-28',
  method: 'tools/call',
  outcome: 'ok',
  durationMs: 250,
  ...over,
});

describe('McpRequestMetrics', () => {
  it.each<[Partial<McpObservation>, string, string]>([
    [{}, '2026-07-28', 'ok'],
    [{ era: 'legacy', protocolVersion: '2025-06-18', method: 'tools/list' }, '2025', 'ok'],
    [{ outcome: 'input_required' }, '2026-07-28', 'input_required'],
    [{ outcome: 'rpc_error:-32602' }, '2026-07-28', 'protocol_error'],
    [{ outcome: 'rpc_error:-32603' }, '2026-07-28', 'internal_error'],
    [{ method: 'notifications/initialized', era: 'legacy' }, '2025', 'notification'],
    [{ method: 'unknown', era: 'legacy' }, '2025', 'notification'],
    [
      { method: 'unknown', outcome: 'rpc_error:-32700', era: 'legacy' },
      'unknown',
      'protocol_error',
    ],
    [{ method: 'unknown', outcome: 'rpc_error:-32600' }, 'unknown', 'protocol_error'],
    [{ method: 'unknown', outcome: 'rpc_error:-32601' }, '2026-07-28', 'protocol_error'],
  ])('%o → era %s, outcome %s', (over, era, outcome) => {
    const { metrics, observer } = setup();
    observer.observe(event(over));
    expect(metrics.recordMcpRequest).toHaveBeenCalledWith(
      era,
      over.method ?? 'tools/call',
      outcome,
      0.25,
    );
  });

  it('counts a tools/call whose result is isError (the endpoint says toolError) as tool_error', () => {
    const { metrics, observer } = setup();
    observer.observe(event({ toolError: true }));
    observer.observe(event({ toolError: false }));
    observer.observe(event({}));
    expect(metrics.recordMcpRequest.mock.calls.map((c: unknown[]) => c[2])).toEqual([
      'tool_error',
      'ok',
      'ok',
    ]);
  });

  it('an unsupported 2025 protocol version (HTTP 400 envelope) is a transport rejection, not a request', () => {
    const { metrics, observer } = setup();
    observer.observe(event({ era: 'legacy', outcome: 'http_400', protocolVersion: 'unknown' }));
    expect(metrics.recordTransportRejection).toHaveBeenCalledWith('unsupported_protocol_version');
    observer.observe(event({ era: 'legacy', outcome: 'http_404', protocolVersion: '2025-11-25' }));
    expect(metrics.recordTransportRejection).toHaveBeenLastCalledWith('session_not_found');
    expect(metrics.recordTransportRejection).toHaveBeenCalledTimes(2);
    expect(metrics.recordMcpRequest).not.toHaveBeenCalled();
  });

  it('records the conventions’ histogram: a known tool by name, an unknown one as empty, errors typed, the sampled trace as exemplar', () => {
    const { metrics, observer } = setup();
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    observer.observe(event({ requestedTool: 'list_accounts', toolError: true, traceId }));
    observer.observe(event({ requestedTool: 'person@example.com' }));
    observer.observe(event({ method: 'tools/list', outcome: 'rpc_error:-32602' }));
    expect(metrics.recordMcpServerOperation.mock.calls).toEqual([
      [
        {
          method: 'tools/call',
          tool: 'list_accounts',
          protocolVersion: '2026-07-28',
          errorType: 'tool_error',
          statusCode: '',
        },
        0.25,
        traceId,
      ],
      [
        {
          method: 'tools/call',
          tool: '',
          protocolVersion: '2026-07-28',
          errorType: '',
          statusCode: '',
        },
        0.25,
        undefined,
      ],
      [
        {
          method: 'tools/list',
          tool: '',
          protocolVersion: '2026-07-28',
          errorType: '-32602',
          statusCode: '-32602',
        },
        0.25,
        undefined,
      ],
    ]);
  });
});
