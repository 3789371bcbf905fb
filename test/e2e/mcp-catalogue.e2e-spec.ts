import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { capturingFetch, textJsonOf, type Json } from '../support/mcp-peers.js';

/**
 * What a new user does: the README's TypeScript snippet, as written, against the real server; and
 * what the model then sees of the catalogue, through both SDK clients.
 */
describe('the README client and the catalogue, through the real SDK clients', () => {
  let t: TestServer;
  let mcpUrl: URL;
  beforeAll(async () => {
    t = await startTestServer();
    mcpUrl = new URL(`${t.url}/mcp`);
  });
  afterAll(async () => t?.close());

  /** The README snippet: v2 client, auto negotiation, form elicitation, an elicitation handler. */
  async function readmeClient(answer: boolean) {
    const { fetch, exchanges } = capturingFetch();
    const asked: string[] = [];
    const transport = new StreamableHTTPClientTransport(mcpUrl, {
      fetch,
      requestInit: { headers: { Authorization: `Bearer ${t.tokens.owner}` } },
    });
    const client = new Client(
      { name: 'my-agent', version: '1.0.0' },
      {
        versionNegotiation: { mode: 'auto' },
        capabilities: { elicitation: { form: {} } },
      },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return answer ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
    });
    await client.connect(transport);
    return { client, asked, exchanges };
  }

  async function createPortalUser(name: string): Promise<string> {
    const res = await t.request('/v1/portal-users', {
      method: 'POST',
      token: 'owner',
      json: { email: `${name.toLowerCase()}@readme.example`, name, send_invitation: false },
    });
    expect(res.status).toBe(201);
    const body: Json = await res.json();
    return String(body.id);
  }

  it('reaches the delete confirmation: the person is asked once, accepts, and the user is gone', async () => {
    const id = await createPortalUser('Rita');
    const { client, asked, exchanges } = await readmeClient(true);
    const result: Json = await client.callTool({
      name: 'delete_portal_user',
      arguments: { id },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ id, deleted: true });
    expect(asked).toEqual([
      'Delete portal user Rita <rita@readme.example>? This cannot be undone.',
    ]);
    // auto negotiation reached 2026-07-28 (the only era with the confirmation form).
    const calls = exchanges.filter((e) => e.requestBody?.method === 'tools/call');
    expect(calls[0]?.requestHeaders.get('mcp-protocol-version')).toBe('2026-07-28');
    expect(calls[0]?.responseBody.result.resultType).toBe('input_required');
    expect((await t.request(`/v1/portal-users/${id}`, { token: 'owner' })).status).toBe(404);
    await client.close();
  });

  it('declining changes nothing (USER_DECLINED)', async () => {
    const id = await createPortalUser('Saulo');
    const { client, asked } = await readmeClient(false);
    const result: Json = await client.callTool({ name: 'delete_portal_user', arguments: { id } });
    expect(result.isError).toBe(true);
    expect(textJsonOf(result).error.code).toBe('USER_DECLINED');
    expect(asked).toHaveLength(1);
    expect((await t.request(`/v1/portal-users/${id}`, { token: 'owner' })).status).toBe(200);
    await client.close();
  });

  it('both clients see described properties and no error boilerplate in tool descriptions', async () => {
    const { client } = await readmeClient(true);
    const v1 = new ClientV1({ name: 'v1', version: '1.0.0' });
    await v1.connect(
      new TransportV1(mcpUrl, {
        requestInit: { headers: { Authorization: `Bearer ${t.tokens.owner}` } },
      }),
    );
    for (const { tools } of [await client.listTools(), await v1.listTools()]) {
      expect(tools.length).toBeGreaterThanOrEqual(15);
      for (const tool of tools) {
        expect(tool.description, tool.name).not.toMatch(/isError|envelope/);
        for (const [prop, schema] of Object.entries<Json>(tool.inputSchema.properties ?? {}))
          expect(schema.description, `${tool.name}.${prop}`).toEqual(expect.any(String));
      }
    }
    await client.close();
    await v1.close();
  });

  it('both clients complete an account id by name prefix', async () => {
    const accounts: Json = await (await t.request('/v1/accounts', { token: 'owner' })).json();
    const initech = accounts.data.find((a: Json) => a.name === 'Initech').id;
    const { client } = await readmeClient(true);
    const v1 = new ClientV1({ name: 'v1', version: '1.0.0' });
    await v1.connect(
      new TransportV1(mcpUrl, {
        requestInit: { headers: { Authorization: `Bearer ${t.tokens.owner}` } },
      }),
    );
    const params = {
      ref: { type: 'ref/prompt' as const, name: 'onboard_portal_user' },
      argument: { name: 'account_id', value: 'init' },
    };
    expect((await client.complete(params)).completion.values).toEqual([initech]);
    expect((await v1.complete(params)).completion.values).toEqual([initech]);
    await client.close();
    await v1.close();
  });
});
