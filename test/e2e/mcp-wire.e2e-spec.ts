import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_SCOPES } from '@app/access-vocabulary';
import { TOOLS } from '@app/mcp-tools';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { parseMaybe, type Json } from '../support/mcp-peers.js';
import { initializeMessage } from '../support/raw-mcp.js';

/**
 * `/mcp` on the wire, with plain fetch: transport refusals (plain HTTP with the API envelope),
 * JSON-RPC framing errors, the 2026-07-28 ladder, era-specific result shapes, authorization
 * refusals on resources and prompts, and the OAuth protected-resource metadata.
 */

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'wire-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const ACCEPT = 'application/json, text/event-stream';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => t?.close());

interface WireResponse {
  status: number;
  headers: Headers;
  body: Json;
}

async function post(
  body: string | object,
  headers: Record<string, string> = {},
  token: string | null = 'owner',
): Promise<WireResponse> {
  const h: Record<string, string> = {
    'content-type': 'application/json',
    accept: ACCEPT,
    ...headers,
  };
  if (token !== null)
    h.authorization = `Bearer ${(t.tokens as Record<string, string>)[token] ?? token}`;
  const res = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: h,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: parseMaybe(await res.text()) };
}

/** A 2026-07-28 request with its required headers (overridable). */
function modern(
  id: number,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  token?: string,
) {
  const name =
    typeof params.name === 'string'
      ? params.name
      : typeof params.uri === 'string'
        ? params.uri
        : undefined;
  return post(
    { jsonrpc: '2.0', id, method, params: { ...params, _meta: MODERN_META } },
    {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
      ...headers,
    },
    token,
  );
}

/** A 2025 request after the (stateless) handshake. */
function legacy(
  id: number,
  method: string,
  params: Record<string, unknown> = {},
  version = '2025-06-18',
  token?: string,
) {
  return post({ jsonrpc: '2.0', id, method, params }, { 'mcp-protocol-version': version }, token);
}

describe('transport refusals (before JSON-RPC is read)', () => {
  it('no token → 401 UNAUTHENTICATED with a Bearer challenge naming the resource metadata', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, null);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp", scope="portal_users:read accounts:read audit:read"`,
    );
    expect(res.body).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
  });

  it('an invalid token → 401 INVALID_TOKEN with error="invalid_token"', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      {},
      `pat_${'x'.repeat(40)}`,
    );
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", resource_metadata="[^"]+\/mcp", scope="portal_users:read accounts:read audit:read"$/,
    );
    expect(res.body).toMatchObject({ error: { code: 'INVALID_TOKEN' } });
  });

  it('the challenge’s resource_metadata URL serves RFC 9728 metadata (and so does the root variant)', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, null);
    const url =
      /resource_metadata="([^"]+)"/.exec(res.headers.get('www-authenticate') ?? '')?.[1] ??
      'missing';
    const expected = {
      resource: `${t.url}/mcp`,
      authorization_servers: [t.url],
      scopes_supported: [...READ_SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'Platform MCP server',
    };
    for (const target of [url, `${t.url}/.well-known/oauth-protected-resource`]) {
      const prm = await fetch(target);
      expect(prm.status).toBe(200);
      expect(prm.headers.get('content-type')).toMatch(/application\/json/);
      expect(await prm.json()).toMatchObject(expected);
    }
  });

  it('a browser Origin not in the allowlist → 403 ORIGIN_NOT_ALLOWED (even before authentication)', async () => {
    for (const token of ['owner', null]) {
      const res = await post(
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { origin: 'https://evil.example.com' },
        token,
      );
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: { code: 'ORIGIN_NOT_ALLOWED' } });
    }
  });

  it('no Origin is allowed; with an empty allowlist even a loopback Origin is not', async () => {
    const local = await legacy(1, 'tools/list', {}, '2025-06-18');
    expect(local.status).toBe(200);
    const res = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { origin: new URL(t.url).origin, 'mcp-protocol-version': '2025-06-18' },
    );
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { code: 'ORIGIN_NOT_ALLOWED' } });
  });

  it('refusals are counted in mcp_transport_rejections_total', async () => {
    await post({}, { origin: 'https://evil.example.com' });
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/mcp_transport_rejections_total\{reason="origin_not_allowed"\} [1-9]/);
  });

  it('a body over 1 MiB → 413 with JSON-RPC -32600 "Request body too large"', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { pad: 'x'.repeat(1024 * 1024) },
    });
    const res = await post(big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Request body too large' },
    });
  });

  it.each(['GET', 'DELETE'])('%s /mcp → 405 with Allow: POST, no token needed', async (method) => {
    const res = await fetch(`${t.url}/mcp`, { method, headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' } });
  });

  it('an Accept that excludes application/json → 406 NOT_ACCEPTABLE', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { accept: 'text/event-stream' },
    );
    expect(res.status).toBe(406);
    expect(res.body).toMatchObject({ error: { code: 'NOT_ACCEPTABLE' } });
  });

  it('a body that is not application/json → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', {
      'content-type': 'text/plain',
    });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });

  it('an unsupported 2025 MCP-Protocol-Version → 400 envelope naming the supported versions', async () => {
    const res = await legacy(1, 'tools/list', {}, '2024-01-01');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: 'UNSUPPORTED_PROTOCOL_VERSION',
        message: expect.any(String),
        details: {
          supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
          requested: '2024-01-01',
        },
      },
    });
  });
});

describe('a URL that is almost right', () => {
  it('POST /mcp/ (trailing slash) → 404 envelope naming POST /mcp', async () => {
    const res = await fetch(`${t.url}/mcp/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT,
        authorization: `Bearer ${t.tokens.owner}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: {
        code: 'NOT_FOUND',
        message: 'Route not found: the route is POST /mcp, without the trailing slash',
        details: { route: 'POST /mcp' },
      },
    });
  });

  it('a REST path with a trailing slash names its route too; a path that exists nowhere does not', async () => {
    const slash = await t.request('/v1/accounts/', { token: 'owner' });
    expect(slash.status).toBe(404);
    expect(await slash.json()).toMatchObject({ error: { details: { route: 'GET /v1/accounts' } } });
    const nowhere = await t.request('/v1/nothing-here/', { token: 'owner' });
    expect(await nowhere.json()).toEqual({
      error: { code: 'NOT_FOUND', message: 'Route not found' },
    });
  });
});

describe('JSON-RPC framing', () => {
  it('a batch → 400 -32600 (batching is not supported in any revision)', async () => {
    const res = await post([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  it('a body that is not JSON → 400 -32700', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 1,');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
  });

  it('an empty body → 400 -32700', async () => {
    const res = await post('');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it('an unknown method → -32601 (404 on 2026-07-28, 200 on 2025)', async () => {
    const m = await modern(1, 'tools/describe');
    expect(m.status).toBe(404);
    expect(m.body).toMatchObject({
      id: 1,
      error: { code: -32601, message: 'Method not found: tools/describe' },
    });
    const l = await legacy(2, 'tools/describe');
    expect(l.status).toBe(200);
    expect(l.body).toMatchObject({ id: 2, error: { code: -32601 } });
  });
});

describe('era shapes', () => {
  it('2026-07-28 results carry resultType, caching hints and serverInfo; 2025 results do not', async () => {
    const m = await modern(1, 'tools/list');
    expect(m.status).toBe(200);
    const result: Json = m.body.result;
    expect(result).toMatchObject({
      resultType: 'complete',
      ttlMs: 300_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'platform-mcp', title: 'Platform' } },
    });
    expect(result.tools.map((tool: Json) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));

    const l = await legacy(2, 'tools/list');
    const legacyResult: Json = l.body.result;
    expect(legacyResult).not.toHaveProperty('resultType');
    expect(legacyResult).not.toHaveProperty('ttlMs');
    expect(legacyResult).not.toHaveProperty('cacheScope');
    expect(legacyResult).not.toHaveProperty('_meta');
  });

  it('initialize answers the requested 2025 revision with the server identity and instructions', async () => {
    const res = await post(initializeMessage('wire', { clientVersion: '1' }));
    expect(res.status).toBe(200);
    // A signed id carrying clientInfo, for attribution only (mcp-client-attribution.e2e-spec.ts).
    expect(res.headers.get('mcp-session-id')).toMatch(/^[\x21-\x7e]+$/);
    expect(res.body).toMatchObject({
      result: {
        protocolVersion: '2025-06-18',
        capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} },
        serverInfo: {
          name: 'platform-mcp',
          title: 'Platform',
          version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        },
        instructions: expect.stringContaining('isError'),
      },
    });
  });

  it('every demo token sees the same tools/list (call-time checks say what is missing)', async () => {
    const names = TOOLS.map((tool) => tool.name);
    for (const token of Object.keys(t.tokens)) {
      const res = await legacy(1, 'tools/list', {}, '2025-11-25', token);
      expect({ token, status: res.status }).toEqual({ token, status: 200 });
      expect({ token, names: res.body.result.tools.map((tool: Json) => tool.name) }).toEqual({
        token,
        names,
      });
    }
  });

  it('resources/read answers private, immediately stale caching hints on 2026-07-28', async () => {
    const res = await modern(1, 'resources/read', { uri: 'platform://organization' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      result: { resultType: 'complete', ttlMs: 0, cacheScope: 'private' },
    });
  });
});

describe('the 2026-07-28 ladder', () => {
  it('header and body disagree on the version → 400 -32020 (even when the body version is unknown)', async () => {
    const res = await post(
      {
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/list',
        params: {
          _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' },
        },
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ id: 5, error: { code: -32020 } });
  });

  it('Mcp-Method or Mcp-Name missing or different from the body → 400 -32020', async () => {
    const method = await modern(6, 'tools/list', {}, { 'mcp-method': 'prompts/list' });
    expect(method.status).toBe(400);
    expect(method.body).toMatchObject({ id: 6, error: { code: -32020 } });
    const name = await modern(
      7,
      'tools/call',
      { name: 'list_accounts', arguments: {} },
      { 'mcp-name': 'delete_account' },
    );
    expect(name.status).toBe(400);
    expect(name.body).toMatchObject({ id: 7, error: { code: -32020 } });
  });

  it('a version both agree on but we do not speak → 400 -32022 with supported and requested', async () => {
    const res = await post(
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/list',
        params: {
          _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '1900-01-01' },
        },
      },
      { 'mcp-protocol-version': '1900-01-01', 'mcp-method': 'tools/list' },
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      id: 8,
      error: {
        code: -32022,
        data: {
          supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
          requested: '1900-01-01',
        },
      },
    });
  });

  it('_meta missing its required keys → 400 -32602', async () => {
    const res = await post(
      {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ id: 9, error: { code: -32602 } });
  });
});

describe('authorization on resources and prompts (-31403, the envelope as data)', () => {
  it('an inactive membership cannot read a resource: membership_inactive', async () => {
    const res = await modern(
      1,
      'resources/read',
      { uri: 'platform://organization' },
      {},
      'inactive_member',
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: 1,
      error: { code: -31403, data: { error: { code: 'membership_inactive' } } },
    });
    expect(res.body.error.message).toBe(res.body.error.data.error.message);
  });

  it('a read-only token cannot get the onboarding prompt: insufficient_scope naming portal_users:write', async () => {
    const res = await legacy(
      2,
      'prompts/get',
      { name: 'onboard_portal_user', arguments: { email: 'a@b.co', name: 'A' } },
      '2025-11-25',
      'readonly_pat',
    );
    expect(res.body).toMatchObject({
      error: {
        code: -31403,
        data: {
          error: { code: 'insufficient_scope', details: { required_scope: 'portal_users:write' } },
        },
      },
    });
  });

  it('a former member is told to authorize again: key_owner_not_member', async () => {
    const res = await legacy(
      3,
      'resources/read',
      { uri: 'platform://organization' },
      '2025-11-25',
      'former_member',
    );
    expect(res.body).toMatchObject({
      error: { code: -31403, data: { error: { code: 'key_owner_not_member' } } },
    });
  });

  it('a member without audit.read cannot get the review prompt: insufficient_permission', async () => {
    const res = await legacy(
      4,
      'prompts/get',
      { name: 'review_recent_activity' },
      '2025-11-25',
      'member',
    );
    expect(res.body).toMatchObject({
      error: {
        code: -31403,
        data: { error: { code: 'insufficient_permission', details: { permission: 'audit.read' } } },
      },
    });
  });
});
