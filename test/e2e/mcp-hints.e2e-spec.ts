import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyToolCall, modernToolCall, post, resultJson } from '../support/raw-mcp.js';
import type { Json } from '../support/mcp-peers.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * What a person reads when a request is incomplete: the answer names what is missing. Every
 * required argument of every tool, left out, is "is required" (not a complaint about a value the
 * caller never sent); a 2026-07-28 method sent as a 2025 request says which headers and `_meta` it
 * lacked.
 */
describe('errors that say what is missing', () => {
  let t: TestServer;
  let tools: { name: string; required: string[] }[];

  /** One JSON-RPC message as the owner, with these headers. */
  function rpc(body: object, headers: Record<string, string>) {
    return post(t.url, t.tokens.owner, body, headers);
  }

  beforeAll(async () => {
    t = await startTestServer();
    const listed = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    const listedTools: Json[] = listed.body.result.tools;
    tools = listedTools.map((tool: Json) => {
      const required: string[] = tool.inputSchema.required ?? [];
      return { name: String(tool.name), required };
    });
  });
  afterAll(async () => t?.close());

  it('the catalogue has tools with required arguments (else the next test proves nothing)', () => {
    expect(tools.filter((tool) => tool.required.length > 0).length).toBeGreaterThanOrEqual(8);
    expect(tools.find((tool) => tool.name === 'delete_portal_user')?.required).toEqual(['id']);
  });

  it.each(['2026-07-28', '2025-11-25'])(
    '%s: every tool called without its arguments names each required one "is required"',
    async (era) => {
      const wrong: string[] = [];
      for (const tool of tools.filter((candidate) => candidate.required.length > 0)) {
        const options = { requestId: `hints-${era}-${tool.name}` };
        const res =
          era === '2026-07-28'
            ? await modernToolCall(t.url, t.tokens.owner, 'hints', tool.name, {}, options)
            : await legacyToolCall(
                t.url,
                t.tokens.owner,
                tool.name,
                {},
                {
                  ...options,
                  protocolVersion: era,
                },
              );
        expect(res.status, tool.name).toBe(200);
        expect(res.body.result?.isError, tool.name).toBe(true);
        const { error } = resultJson(res.body);
        const details: { field: string; message: string }[] = error.details ?? [];
        for (const argument of tool.required) {
          const said = details.find((d) => d.field === argument);
          if (error.code !== 'VALIDATION_ERROR' || said?.message !== 'is required')
            wrong.push(`${tool.name}.${argument}: ${JSON.stringify(error)}`);
        }
      }
      expect(wrong).toEqual([]);
    },
  );

  it('delete_portal_user without id: "Validation failed: id is required", nothing deleted', async () => {
    const res = await modernToolCall(
      t.url,
      t.tokens.owner,
      'hints',
      'delete_portal_user',
      {},
      {
        requestId: 'hints-delete-no-id',
      },
    );
    expect(resultJson(res.body)).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: 'Validation failed: id is required',
        details: [{ field: 'id', message: 'is required' }],
      },
    });
  });

  it('server/discover without the 2026-07-28 headers and _meta: -32601 saying what to send', async () => {
    const res = await rpc(
      { jsonrpc: '2.0', id: 7, method: 'server/discover' },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    expect(res.body.error.code).toBe(-32601);
    const message = String(res.body.error.message);
    expect(message).toContain('server/discover is served only on protocol revision 2026-07-28');
    expect(message).toContain('MCP-Protocol-Version: 2026-07-28');
    expect(message).toContain('Mcp-Method: server/discover');
    expect(message).toContain('params._meta["io.modelcontextprotocol/protocolVersion"]');

    // Sent as the hint says, it is answered.
    const ok = await rpc(
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
    );
    expect(ok.status).toBe(200);
    expect(ok.body.result.supportedVersions).toContain('2026-07-28');
  });
});
