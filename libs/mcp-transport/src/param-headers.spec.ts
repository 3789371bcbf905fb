import { describe, expect, it } from 'vitest';
import { McpEndpointService } from './mcp-endpoint.service.js';
import { headerMatchesValue, paramHeadersOf } from './param-headers.js';

const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });

describe('x-mcp-header arguments (Mcp-Param-*)', () => {
  it('are read from root properties; a name that is not a token, a duplicate or a bad type fails', () => {
    expect(
      paramHeadersOf('t', schema({ region: { type: 'string', 'x-mcp-header': 'Region' }, q: {} })),
    ).toEqual([{ header: 'Region', argument: 'region', type: 'string' }]);
    expect(() =>
      paramHeadersOf('t', schema({ a: { type: 'string', 'x-mcp-header': 'Bad Name' } })),
    ).toThrow(/HTTP token/);
    expect(() =>
      paramHeadersOf(
        't',
        schema({
          a: { type: 'string', 'x-mcp-header': 'Region' },
          b: { type: 'string', 'x-mcp-header': 'region' },
        }),
      ),
    ).toThrow(/used twice/);
    expect(() =>
      paramHeadersOf('t', schema({ a: { type: 'number', 'x-mcp-header': 'Amount' } })),
    ).toThrow(/string, integer or boolean/);
  });

  it('compare strings exactly, integers numerically, booleans as true/false', () => {
    expect(headerMatchesValue('eu-west', 'eu-west', 'string')).toBe(true);
    expect(headerMatchesValue('EU-west', 'eu-west', 'string')).toBe(false);
    expect(headerMatchesValue('42.0', 42, 'integer')).toBe(true);
    expect(headerMatchesValue('42', 43, 'integer')).toBe(false);
    expect(headerMatchesValue('4e1', 40, 'integer')).toBe(false);
    expect(headerMatchesValue('true', true, 'boolean')).toBe(true);
    expect(headerMatchesValue('True', true, 'boolean')).toBe(false);
  });

  describe('on a 2026-07-28 tools/call', () => {
    const endpoint = new McpEndpointService<object>({
      serverInfo: { name: 't', version: '1' },
      capabilities: { legacy: { tools: {} }, modern: { tools: {} } },
      handlers: {
        'tools/list': () => Promise.resolve({ kind: 'complete', result: { tools: [] } }),
        'tools/call': () => Promise.resolve({ kind: 'complete', result: { content: [] } }),
      },
      onInternalError: () => undefined,
      paramHeadersOf: (name) =>
        name === 'geo' ? [{ header: 'Region', argument: 'region', type: 'string' }] : undefined,
    });
    const call = (args: Record<string, unknown>, extra: Record<string, string> = {}) =>
      endpoint.handle(
        {
          headers: {
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'geo',
            ...extra,
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: {
              name: 'geo',
              arguments: args,
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            },
          }),
          requestId: 'r',
        },
        {},
      );
    const codeOf = async (args: Record<string, unknown>, extra?: Record<string, string>) => {
      const res = await call(args, extra);
      const body: { error?: { code: number } } = JSON.parse(res.body!);
      return `${res.status} ${body.error?.code ?? 'ok'}`;
    };

    it('accepts the header equal to the argument (literal or base64-wrapped), or neither', async () => {
      expect(await codeOf({ region: 'eu' }, { 'mcp-param-region': 'eu' })).toBe('200 ok');
      const wrapped = `=?base64?${Buffer.from('zürich').toString('base64')}?=`;
      expect(await codeOf({ region: 'zürich' }, { 'mcp-param-region': wrapped })).toBe('200 ok');
      expect(await codeOf({})).toBe('200 ok');
      expect(await codeOf({ region: null })).toBe('200 ok');
    });

    it('refuses a missing, different or malformed header with 400 / -32020', async () => {
      expect(await codeOf({ region: 'eu' })).toBe('400 -32020');
      expect(await codeOf({ region: 'eu' }, { 'mcp-param-region': 'us' })).toBe('400 -32020');
      expect(await codeOf({ region: 'eu' }, { 'mcp-param-region': '=?base64?!!?=' })).toBe(
        '400 -32020',
      );
    });
  });
});
