// oxlint-disable typescript/no-unsafe-type-assertion -- test doubles stand in for Nest providers; results are read field by field
import { describe, expect, it, vi } from 'vitest';
import { completeResult, testPrincipal, testAccessPolicy } from '@app/testing';
import type { AccessRequirement } from '@app/access';
import type { Principal } from '@app/identity';
import { detachedChannel, McpError, type McpRequestContext } from '@app/mcp-transport';
import type { McpCallExtra } from './mcp-call-extra.js';
import { AUTHORIZATION_REFUSED } from './mcp-refusals.js';
import { ResourcesHandler } from './resources.handler.js';
import type { RestDispatcher, RestResponse } from './rest-dispatcher.js';
import type { CompiledTool, ToolCatalog } from './tool-catalog.js';

const PORTAL_USER_ID = '0b0e4a3c-6f5e-4c39-9a55-3f1f2d4b8e10';

/** A viewer who may read portal users and accounts. */
function principal(over: Partial<Principal> = {}): Principal {
  return testPrincipal({
    scopes: ['portal_users:read', 'accounts:read'],
    clientName: 'token client',
    membership: {
      id: 'm1',
      status: 'active',
      role: 'viewer',
      permissions: ['portal_users.read', 'accounts.read'],
    },
    ...over,
  });
}

function tool(
  name: string,
  path: string,
  access: AccessRequirement,
  method: 'GET' | 'POST' = 'GET',
): CompiledTool {
  return { def: { name, endpoint: { method, path } }, access } as unknown as CompiledTool;
}

const TOOLS = new Map<string, CompiledTool>([
  ['get_current_context', tool('get_current_context', '/v1/me', {})],
  [
    'get_portal_user',
    tool('get_portal_user', '/v1/portal-users/:id', {
      scope: { resource: 'portal_users', access: 'read' },
      permission: 'portal_users.read',
    }),
  ],
  [
    'get_account',
    tool('get_account', '/v1/accounts/:id', {
      scope: { resource: 'accounts', access: 'read' },
      permission: 'accounts.read',
    }),
  ],
]);

const policy = testAccessPolicy();

function setup(answer: RestResponse = { status: 200, body: {} }, tools = TOOLS) {
  const dispatch = vi.fn<RestDispatcher['dispatch']>(async () => answer);
  const catalog = { get: (name: string) => tools.get(name) } as unknown as ToolCatalog;
  const handler = new ResourcesHandler(catalog, policy, { dispatch } as unknown as RestDispatcher);
  return { handler, dispatch };
}

function ctx(
  era: 'legacy' | 'modern' = 'modern',
  protocolVersion = era === 'modern' ? '2026-07-28' : '2025-11-25',
): McpRequestContext {
  return {
    era,
    protocolVersion,
    method: 'resources/read',
    jsonRpcId: 1,
    clientInfo: era === 'modern' ? { name: 'test-client' } : undefined,
    clientCapabilities: {},
    meta: {},
    channel: detachedChannel(),
  };
}

const extra = (p: Principal = principal()): McpCallExtra => ({
  principal: p,
  requestId: 'req-1',
  correlationId: null,
});

async function readError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('ResourcesHandler listings', () => {
  it('lists platform://organization and the two record templates, public and cacheable', async () => {
    const { handler } = setup();
    const list = await handler.list({}, ctx());
    expect(list).toMatchObject({
      kind: 'complete',
      cache: { ttlMs: 300_000, cacheScope: 'public' },
      result: {
        resources: [
          { uri: 'platform://organization', name: 'organization', mimeType: 'application/json' },
        ],
      },
    });
    const templates = await handler.listTemplates({}, ctx());
    expect(templates).toMatchObject({
      kind: 'complete',
      result: {
        resourceTemplates: [
          {
            uriTemplate: 'platform://portal-users/{id}',
            name: 'portal-user',
            title: 'Portal user',
            mimeType: 'application/json',
          },
          {
            uriTemplate: 'platform://accounts/{id}',
            name: 'account',
            title: 'Customer account',
            mimeType: 'application/json',
          },
        ],
      },
    });
  });

  it('leaves out `title` for 2025-03-26, which did not have it', async () => {
    const { handler } = setup();
    const list = await handler.listTemplates({}, ctx('legacy', '2025-03-26'));
    const entries = completeResult(list).resourceTemplates as Record<string, unknown>[];
    expect(entries.every((e) => !('title' in e) && typeof e.description === 'string')).toBe(true);
  });

  it('refuses a cursor it never issued with -32602', async () => {
    const { handler } = setup();
    const error = await readError(handler.list({ cursor: 'abc' }, ctx()));
    expect(error.code).toBe(-32602);
  });

  it('refuses to start when a tool it reuses is missing or is not a GET by id', () => {
    const missing = new Map(TOOLS);
    missing.delete('get_account');
    expect(() => setup(undefined, missing)).toThrow(/get_account is not registered/);
    const wrong = new Map(TOOLS);
    wrong.set('get_account', tool('get_account', '/v1/accounts', {}, 'POST'));
    expect(() => setup(undefined, wrong)).toThrow(/must be GET/);
  });
});

describe('ResourcesHandler.read', () => {
  it('reads a portal user through its REST endpoint as the caller, channel mcp, private and uncached', async () => {
    const record = { id: PORTAL_USER_ID, email: 'bo@example.com', status: 'invited' };
    const { handler, dispatch } = setup({ status: 200, body: record });
    const uri = `platform://portal-users/${PORTAL_USER_ID}`;
    const outcome = await handler.read({ uri }, ctx(), extra());
    expect(outcome).toEqual({
      kind: 'complete',
      cache: { ttlMs: 0, cacheScope: 'private' },
      result: { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(record) }] },
    });
    expect(dispatch).toHaveBeenCalledWith(
      expect.objectContaining({
        channel: 'mcp',
        clientName: 'test-client',
        requestId: 'req-1',
        confirmationId: null,
      }),
      expect.objectContaining({ method: 'GET', path: '/v1/portal-users/:id' }),
      { params: { id: PORTAL_USER_ID } },
    );
  });

  it('reads the organisation profile from GET /v1/me', async () => {
    const me = {
      person: { id: 'u1', email: 'ana@acme.test', name: 'Ana' },
      organization: { id: 'o1', slug: 'acme', name: 'Acme' },
      token: { id: 't1', kind: 'personal', scopes: ['accounts:read'], client_name: null },
      membership: { role: 'viewer', status: 'active', permissions: ['accounts.read'] },
      channel: 'mcp',
    };
    const { handler, dispatch } = setup({ status: 200, body: me });
    const outcome = await handler.read({ uri: 'platform://organization' }, ctx(), extra());
    expect(dispatch).toHaveBeenCalledWith(
      expect.anything(),
      expect.objectContaining({ method: 'GET', path: '/v1/me' }),
      { params: {} },
    );
    const text = (completeResult(outcome).contents as { text: string }[])[0].text;
    expect(JSON.parse(text)).toEqual({
      organization: { id: 'o1', slug: 'acme', name: 'Acme' },
      acting_person: {
        id: 'u1',
        email: 'ana@acme.test',
        name: 'Ana',
        role: 'viewer',
        status: 'active',
        permissions: ['accounts.read'],
      },
      token: { kind: 'personal', scopes: ['accounts:read'] },
    });
  });

  it.each([
    ['an unknown scheme', 'test://nonexistent-resource-for-conformance-testing'],
    ['an unknown collection', `platform://members/${PORTAL_USER_ID}`],
    ['a malformed id', 'platform://accounts/not-a-uuid'],
    ['an extra path segment', `platform://accounts/${PORTAL_USER_ID}/x`],
    ['an empty id', 'platform://portal-users/'],
  ])('%s is not found, without touching the API', async (_what, uri) => {
    const { handler, dispatch } = setup();
    const error = await readError(handler.read({ uri }, ctx(), extra()));
    expect(error.codeFor('modern')).toBe(-32602);
    expect(error.codeFor('legacy')).toBe(-32002);
    expect(error.data).toEqual({ uri });
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('a missing or foreign record (the API answers 404) is not found: -32002 legacy, -32602 modern', async () => {
    const { handler } = setup({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'Account not found' } },
    });
    const uri = `platform://accounts/${PORTAL_USER_ID}`;
    const error = await readError(handler.read({ uri }, ctx('legacy'), extra()));
    expect(error.codeFor('legacy')).toBe(-32002);
    expect(error.codeFor('modern')).toBe(-32602);
    expect(error.message).toBe('Resource not found');
    expect(error.data).toEqual({ uri });
  });

  it('runs the four checks before dispatching: a refusal is -31403 with the envelope as data', async () => {
    const { handler, dispatch } = setup();
    const uri = `platform://accounts/${PORTAL_USER_ID}`;
    const noScope = await readError(
      handler.read({ uri }, ctx(), extra(principal({ scopes: ['portal_users:read'] }))),
    );
    expect(noScope.code).toBe(AUTHORIZATION_REFUSED);
    expect(noScope.data).toMatchObject({
      error: { code: 'insufficient_scope', details: { required_scope: 'accounts:read' } },
    });
    expect(noScope.message).toBe((noScope.data as { error: { message: string } }).error.message);

    const former = await readError(
      handler.read(
        { uri: 'platform://organization' },
        ctx(),
        extra(principal({ membership: null })),
      ),
    );
    expect(former.code).toBe(AUTHORIZATION_REFUSED);
    expect(former.data).toMatchObject({ error: { code: 'key_owner_not_member' } });
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('an authorization refusal from the endpoint itself is also -31403', async () => {
    const envelope = {
      error: {
        code: 'insufficient_permission',
        message: 'x',
        details: { permission: 'accounts.read' },
      },
    };
    const { handler } = setup({ status: 403, body: envelope });
    const error = await readError(
      handler.read({ uri: `platform://accounts/${PORTAL_USER_ID}` }, ctx(), extra()),
    );
    expect(error.code).toBe(AUTHORIZATION_REFUSED);
    expect(error.data).toEqual(envelope);
  });

  it('an unexpected API failure is thrown as a plain error (the endpoint makes it -32603)', async () => {
    const { handler } = setup({
      status: 500,
      body: { error: { code: 'INTERNAL_ERROR', message: 'boom' } },
    });
    await expect(
      handler.read({ uri: `platform://accounts/${PORTAL_USER_ID}` }, ctx(), extra()),
    ).rejects.not.toBeInstanceOf(McpError);
  });

  it('a missing uri is -32602', async () => {
    const { handler } = setup();
    expect((await readError(handler.read({}, ctx(), extra()))).code).toBe(-32602);
  });
});
