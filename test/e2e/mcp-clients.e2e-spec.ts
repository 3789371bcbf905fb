import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '@app/mcp-tools';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { PEERS, rpcErrorOf, textJsonOf, type Json, type McpPeer } from '../support/mcp-peers.js';

/**
 * The real server driven by real MCP clients over HTTP: the v2 SDK client pinned to 2026-07-28, in
 * auto and legacy mode, pinned to 2025-06-18 and 2025-03-26, and the v1 SDK client. Same tools,
 * resources, prompts and error vocabulary in every era; only the resource-not-found code differs
 * (-32002 on 2025 revisions, -32602 on 2026-07-28).
 */

let t: TestServer;
let anaId: string;
let globexPortalUserId: string;

async function firstPortalUserId(token: 'owner' | 'globex_owner', query: string): Promise<string> {
  const page: Json = await (await t.request(`/v1/portal-users${query}`, { token })).json();
  const id: unknown = page?.data?.[0]?.id;
  if (typeof id !== 'string')
    throw new Error(`no portal user for ${token} ${query}: ${JSON.stringify(page)}`);
  return id;
}

beforeAll(async () => {
  t = await startTestServer();
  anaId = await firstPortalUserId('owner', '?q=ana@example.com');
  globexPortalUserId = await firstPortalUserId('globex_owner', '');
});
afterAll(async () => t?.close());

function toolNames(listing: Json): string[] {
  return listing.tools.map((tool: Json) => tool.name);
}

describe.each(PEERS)('$label', (spec) => {
  const modern = spec.protocolVersion === '2026-07-28';
  const structured = spec.protocolVersion !== '2025-03-26';
  let peer: McpPeer;

  beforeAll(async () => {
    peer = await spec.connect(`${t.url}/mcp`, t.tokens.owner);
  });
  afterAll(async () => peer?.close());

  it(`ends up on ${spec.protocolVersion}, with that era's result shape on the wire`, async () => {
    await peer.listTools();
    const posts = peer.exchanges.filter((e) => e.method === 'POST');
    const handshake = posts.find((e) => e.requestBody?.method === 'initialize');
    expect(handshake?.responseBody.result.protocolVersion).toBe(
      modern ? undefined : spec.protocolVersion,
    );
    const list = posts.findLast((e) => e.requestBody?.method === 'tools/list');
    expect(list?.status).toBe(200);
    expect(list?.requestHeaders.get('mcp-protocol-version') ?? spec.protocolVersion).toBe(
      spec.protocolVersion,
    );
    const result: Json = list?.responseBody.result;
    expect(result.resultType).toBe(modern ? 'complete' : undefined);
    expect(result.ttlMs).toBe(modern ? 300_000 : undefined);
    expect(result.cacheScope).toBe(modern ? 'public' : undefined);
  });

  it('lists every tool, in the registry order, the same each time', async () => {
    const first = toolNames(await peer.listTools());
    expect(first).toEqual(TOOLS.map((tool) => tool.name));
    expect(toolNames(await peer.listTools())).toEqual(first);
  });

  it('calls list_portal_users and get_portal_user', async () => {
    const list: Json = await peer.callTool('list_portal_users', { q: 'ana@example.com' });
    expect(list.isError ?? false).toBe(false);
    const page: Json = textJsonOf(list);
    expect(page.data.map((u: Json) => u.email)).toContain('ana@example.com');
    expect(list.structuredContent).toEqual(structured ? page : undefined);

    const one: Json = await peer.callTool('get_portal_user', { id: anaId });
    expect(one.isError ?? false).toBe(false);
    expect(textJsonOf(one)).toMatchObject({
      id: anaId,
      email: 'ana@example.com',
      name: 'Ana Souza',
    });
  });

  it('an unknown tool is JSON-RPC -32602', async () => {
    const error = await rpcErrorOf(peer.callTool('describe_everything', {}));
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/describe_everything/);
  });

  it('an argument the tool does not declare is JSON-RPC -32602', async () => {
    const error = await rpcErrorOf(
      peer.callTool('get_portal_user', { id: anaId, include_secrets: true }),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/include_secrets/);
  });

  it('a declared argument with a bad value is an isError VALIDATION_ERROR naming the field', async () => {
    const result: Json = await peer.callTool('list_portal_users', { status: 'sleeping' });
    expect(result.isError).toBe(true);
    const envelope: Json = textJsonOf(result);
    expect(envelope).toMatchObject({
      error: {
        code: 'VALIDATION_ERROR',
        details: expect.arrayContaining([expect.objectContaining({ field: 'status' })]),
      },
    });
    // Failures carry the envelope as text only (docs/adr/0005): no client validates it against
    // the tool's success output schema.
    expect(result.structuredContent).toBeUndefined();
  });

  it('another organisation’s record is NOT_FOUND (never revealed)', async () => {
    const result: Json = await peer.callTool('get_portal_user', { id: globexPortalUserId });
    expect(result.isError).toBe(true);
    expect(textJsonOf(result)).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('lists and reads resources', async () => {
    const resources: Json = await peer.listResources();
    expect(resources.resources.map((r: Json) => r.uri)).toEqual(['platform://organization']);
    const templates: Json = await peer.listResourceTemplates();
    expect(templates.resourceTemplates.map((r: Json) => r.uriTemplate)).toEqual([
      'platform://portal-users/{id}',
      'platform://accounts/{id}',
    ]);

    const uri = `platform://portal-users/${anaId}`;
    const read: Json = await peer.readResource(uri);
    expect(read.contents).toHaveLength(1);
    expect(read.contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
    expect(JSON.parse(read.contents[0].text)).toMatchObject({
      id: anaId,
      email: 'ana@example.com',
    });

    const org: Json = await peer.readResource('platform://organization');
    expect(JSON.parse(org.contents[0].text)).toMatchObject({
      organization: { slug: 'acme', name: 'Acme' },
    });
  });

  it(`a foreign record is resource-not-found: ${modern ? '-32602' : '-32002'} with data.uri`, async () => {
    const foreign = `platform://portal-users/${globexPortalUserId}`;
    const error = await rpcErrorOf(peer.readResource(foreign));
    expect(error.data).toEqual({ uri: foreign });
    const wire: Json = peer.exchanges.at(-1)?.responseBody;
    expect(wire.error.code).toBe(modern ? -32602 : -32002);
  });

  it('gets a prompt that tells the model which tools to call; unknown prompt or argument is -32602', async () => {
    const prompts: Json = await peer.listPrompts();
    expect(prompts.prompts.map((p: Json) => p.name)).toEqual([
      'onboard_portal_user',
      'review_recent_activity',
    ]);
    const prompt: Json = await peer.getPrompt('onboard_portal_user', {
      email: 'new.person@example.com',
      name: 'New Person',
    });
    expect(prompt.messages).toHaveLength(1);
    expect(prompt.messages[0].role).toBe('user');
    expect(prompt.messages[0].content.text).toContain('create_portal_user');
    expect(prompt.messages[0].content.text).toContain('new.person@example.com');

    expect((await rpcErrorOf(peer.getPrompt('do_everything'))).code).toBe(-32602);
    expect(
      (await rpcErrorOf(peer.getPrompt('review_recent_activity', { until: '2026-01-01' }))).code,
    ).toBe(-32602);
  });
});
