import { describe, expect, it, vi } from 'vitest';
import { McpEndpointService } from './mcp-endpoint.service.js';
import type {
  McpCacheHint,
  McpEndpointOptions,
  McpHandlerMap,
  McpHandlerOutcome,
  McpHttpRequest,
  McpHttpResponse,
  McpMethodHandler,
  McpObservation,
  McpRequestContext,
  McpServerCapabilities,
} from './mcp-endpoint.types.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from './mcp-protocol.constants.js';
import { McpError } from './mcp.error.js';

// ------------------------------------------------------------------------------------ fixtures

interface Extra {
  principalId: string;
  requestId: string;
}

const REQUEST_ID = 'req-7f3a';
const EXTRA: Extra = { principalId: 'person-1', requestId: REQUEST_ID };
const SERVER_INFO = { name: 'platform-mcp', version: '1.4.0', title: 'Platform' };
const INSTRUCTIONS = 'Manage portal users and accounts.';
const MODERN = '2026-07-28';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
const PV_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPS_KEY = 'io.modelcontextprotocol/clientCapabilities';
const INFO_KEY = 'io.modelcontextprotocol/clientInfo';
const META = '_meta';

const CAPABILITIES: { legacy: McpServerCapabilities; modern: McpServerCapabilities } = {
  legacy: { tools: {}, resources: {}, prompts: {}, logging: {} },
  modern: { tools: {}, resources: {}, prompts: {}, completions: {} },
};

const TOOLS_RESULT = { tools: [{ name: 'get_portal_user', inputSchema: { type: 'object' } }] };
const CALL_RESULT = { content: [{ type: 'text', text: 'done' }], isError: false };

const ELICIT_FORM = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Delete portal user Ana?',
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
  },
};

function complete(result: Record<string, unknown>, cache?: McpCacheHint): McpHandlerOutcome {
  return cache === undefined ? { kind: 'complete', result } : { kind: 'complete', result, cache };
}

function handlerReturning(outcome: McpHandlerOutcome) {
  return vi.fn<McpMethodHandler<Extra>>(() => Promise.resolve(outcome));
}

function handlerThrowing(error: unknown) {
  return vi.fn<McpMethodHandler<Extra>>(() => Promise.reject(error));
}

function defaultHandlers() {
  return {
    'tools/list': handlerReturning(complete(TOOLS_RESULT)),
    'tools/call': handlerReturning(complete(CALL_RESULT)),
    'resources/list': handlerReturning(complete({ resources: [] })),
    'resources/templates/list': handlerReturning(complete({ resourceTemplates: [] })),
    'resources/read': handlerReturning(
      complete({ contents: [{ uri: 'platform://organization', text: '{}' }] }),
    ),
    'prompts/list': handlerReturning(complete({ prompts: [] })),
    'prompts/get': handlerReturning(complete({ messages: [] })),
    'completion/complete': handlerReturning(complete({ completion: { values: [] } })),
  };
}

type Handlers = ReturnType<typeof defaultHandlers>;
/** The tasks extension's methods, served only where it is advertised. */
type TaskHandlers = Record<
  'tasks/get' | 'tasks/update' | 'tasks/cancel',
  ReturnType<typeof handlerReturning>
>;

interface SetupOptions {
  handlers?: Partial<Handlers & TaskHandlers>;
  capabilities?: { legacy: McpServerCapabilities; modern: McpServerCapabilities };
  discoverTtlMs?: number;
  withoutCompletion?: boolean;
}

function setup(options: SetupOptions = {}) {
  const handlers: Handlers & Partial<TaskHandlers> = { ...defaultHandlers(), ...options.handlers };
  const map: McpHandlerMap<Extra> = options.withoutCompletion
    ? { ...handlers, 'completion/complete': undefined }
    : handlers;
  const onInternalError = vi.fn<(error: unknown, ctx: McpRequestContext, extra: Extra) => void>();
  const observe = vi.fn<(event: McpObservation) => void>();
  const endpoint = new McpEndpointService<Extra>({
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
    capabilities: options.capabilities ?? CAPABILITIES,
    handlers: map,
    onInternalError,
    observe,
    discoverTtlMs: options.discoverTtlMs,
  });
  return { endpoint, handlers, onInternalError, observe };
}

type Headers = Record<string, string | undefined>;

/** A modern request with conformant `_meta` and SEP-2243 headers; `headers` entries override. */
function modern(
  method: string,
  params: Record<string, unknown> = {},
  options: { id?: unknown; headers?: Headers; meta?: Record<string, unknown> | null } = {},
): McpHttpRequest {
  const meta =
    options.meta === null
      ? undefined
      : {
          [PV_KEY]: MODERN,
          [CAPS_KEY]: {},
          [INFO_KEY]: { name: 'test-client', version: '1.0.0' },
          ...options.meta,
        };
  const headers: Headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
  };
  const name =
    method === 'resources/read'
      ? params.uri
      : method.endsWith('/call') || method === 'prompts/get'
        ? params.name
        : undefined;
  if (typeof name === 'string') headers['mcp-name'] = name;
  Object.assign(headers, options.headers);
  const body = {
    jsonrpc: '2.0',
    id: options.id ?? 1,
    method,
    params: meta === undefined ? params : { ...params, _meta: meta },
  };
  return { headers, body: JSON.stringify(body), requestId: REQUEST_ID };
}

/** A post-initialize legacy request (2025-11-25 header unless told otherwise; null = no header). */
function legacy(
  method: string,
  params?: Record<string, unknown>,
  options: { id?: unknown; version?: string | null; headers?: Headers } = {},
): McpHttpRequest {
  const headers: Headers = { 'content-type': 'application/json' };
  if (options.version !== null) headers['mcp-protocol-version'] = options.version ?? '2025-11-25';
  Object.assign(headers, options.headers);
  const body: Record<string, unknown> = { jsonrpc: '2.0', id: options.id ?? 1, method };
  if (params !== undefined) body.params = params;
  return { headers, body: JSON.stringify(body), requestId: REQUEST_ID };
}

function raw(body: string, headers: Headers = {}): McpHttpRequest {
  return { headers, body, requestId: REQUEST_ID };
}

interface Reply {
  jsonrpc?: string;
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

function reply(response: McpHttpResponse): Reply {
  expect(response.headers['content-type']).toBe('application/json');
  expect(response.body).toBeTypeOf('string');
  const parsed: Reply = JSON.parse(response.body ?? 'null');
  expect(parsed).toBeTypeOf('object');
  return parsed;
}

function lastCtx(handler: Handlers[keyof Handlers]): McpRequestContext | undefined {
  return handler.mock.lastCall?.[1];
}

function initialize(version: unknown, headers: Headers = {}, id: unknown = 1): McpHttpRequest {
  return raw(
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: {
        protocolVersion: version,
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      },
    }),
    { 'content-type': 'application/json', ...headers },
  );
}

function expectNoModernFields(result: Record<string, unknown> | undefined): void {
  expect(result).toBeDefined();
  expect(result).not.toHaveProperty('resultType');
  expect(result).not.toHaveProperty('ttlMs');
  expect(result).not.toHaveProperty('cacheScope');
  expect(result?.[META] ?? {}).not.toHaveProperty([SERVER_INFO_KEY]);
}

// ------------------------------------------------------------------------------------ framing

describe('JSON-RPC framing (both eras)', () => {
  it('answers invalid JSON with 400 and the exact parse error', async () => {
    const { endpoint } = setup();
    const response = await endpoint.handle(raw('{"jsonrpc":'), EXTRA);
    expect(response.status).toBe(400);
    expect(response.body).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
    );
  });

  it.each([
    ['no version header', {}],
    ['2025-03-26', { 'mcp-protocol-version': '2025-03-26' }],
    ['2026-07-28', { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' }],
  ])('rejects a batch in every revision (%s)', async (_name, headers: Headers) => {
    const { endpoint, handlers } = setup();
    const batch = JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]);
    const response = await endpoint.handle(raw(batch, headers), EXTRA);
    expect(response.status).toBe(400);
    expect(reply(response)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not supported' },
    });
    expect(handlers['tools/list']).not.toHaveBeenCalled();
  });

  it.each([
    ['a bare string', '"tools/list"', null],
    ['missing jsonrpc', '{"id":7,"method":"tools/list"}', 7],
    ['a null request id', '{"jsonrpc":"2.0","id":null,"method":"tools/list"}', null],
    ['a fractional id', '{"jsonrpc":"2.0","id":2.5,"method":"tools/list"}', null],
    ['a non-string method', '{"jsonrpc":"2.0","id":"abc","method":42}', 'abc'],
    ['array params', '{"jsonrpc":"2.0","id":8,"method":"tools/list","params":[]}', 8],
  ])('answers %s with 400 / -32600, echoing a readable id', async (_name, body, id) => {
    const { endpoint, handlers } = setup();
    const response = await endpoint.handle(raw(body), EXTRA);
    expect(response.status).toBe(400);
    const parsed = reply(response);
    expect(parsed.id).toBe(id);
    expect(parsed.error?.code).toBe(-32600);
    expect(handlers['tools/list']).not.toHaveBeenCalled();
  });

  it('refuses a legacy JSON-RPC response no request of this server waits for: 400 / -32600', async () => {
    const { endpoint } = setup();
    const response = await endpoint.handle(
      raw('{"jsonrpc":"2.0","id":3,"result":{"action":"accept"}}', {
        'mcp-protocol-version': '2025-11-25',
      }),
      EXTRA,
    );
    expect(response.status).toBe(400);
    expect(reply(response)).toMatchObject({ id: 3, error: { code: -32600 } });
    expect(reply(response).error?.message).toMatch(/no request of this server is waiting/);
  });

  it('refuses a JSON-RPC response on the modern path with 400 / -32600', async () => {
    const { endpoint } = setup();
    const response = await endpoint.handle(
      raw('{"jsonrpc":"2.0","id":3,"result":{}}', { 'mcp-protocol-version': MODERN }),
      EXTRA,
    );
    expect(response.status).toBe(400);
    expect(reply(response)).toMatchObject({ id: 3, error: { code: -32600 } });
  });

  it('echoes string ids verbatim', async () => {
    const { endpoint } = setup();
    const legacyReply = reply(
      await endpoint.handle(legacy('ping', undefined, { id: 'a-1' }), EXTRA),
    );
    expect(legacyReply.id).toBe('a-1');
    const modernReply = reply(
      await endpoint.handle(modern('tools/list', {}, { id: 'b-2' }), EXTRA),
    );
    expect(modernReply.id).toBe('b-2');
  });
});

// ------------------------------------------------------------------------------------ legacy

describe('legacy era (2025 revisions)', () => {
  it.each(['2025-03-26', '2025-06-18', '2025-11-25'])(
    'initialize echoes %s and mints no session',
    async (version) => {
      const { endpoint } = setup();
      const response = await endpoint.handle(initialize(version, {}, 11), EXTRA);
      expect(response.status).toBe(200);
      expect(response.headers).toEqual({ 'content-type': 'application/json' });
      const parsed = reply(response);
      expect(parsed.id).toBe(11);
      expect(parsed.result).toMatchObject({
        protocolVersion: version,
        capabilities: CAPABILITIES.legacy,
        instructions: INSTRUCTIONS,
      });
      expectNoModernFields(parsed.result);
    },
  );

  it('keeps each revision’s Implementation shape (no title before 2025-06-18)', async () => {
    const { endpoint } = setup();
    const old = reply(await endpoint.handle(initialize('2025-03-26'), EXTRA));
    expect(old.result?.serverInfo).toEqual({ name: 'platform-mcp', version: '1.4.0' });
    const newer = reply(await endpoint.handle(initialize('2025-06-18'), EXTRA));
    expect(newer.result?.serverInfo).toEqual(SERVER_INFO);
  });

  it.each(['2024-11-05', '2026-07-28', '1900-01-01'])(
    'initialize counter-offers 2025-11-25 for %s',
    async (version) => {
      const { endpoint } = setup();
      const parsed = reply(await endpoint.handle(initialize(version), EXTRA));
      expect(parsed.result?.protocolVersion).toBe('2025-11-25');
    },
  );

  it('answers initialize whatever standard headers a client adds, and ignores Mcp-Session-Id', async () => {
    const { endpoint } = setup();
    const response = await endpoint.handle(
      initialize('2025-11-25', {
        'mcp-protocol-version': 'garbage',
        'mcp-method': 'initialize',
        'mcp-session-id': 'abc',
      }),
      EXTRA,
    );
    expect(response.status).toBe(200);
    expect(response.headers).not.toHaveProperty('mcp-session-id');
    expect(reply(response).result?.protocolVersion).toBe('2025-11-25');
  });

  it('rejects initialize without a protocolVersion with -32602', async () => {
    const { endpoint } = setup();
    const response = await endpoint.handle(initialize(undefined), EXTRA);
    expect(response.status).toBe(200);
    expect(reply(response).error?.code).toBe(-32602);
  });

  it.each([
    ['absent', null, '2025-03-26'],
    ['2025-06-18', '2025-06-18', '2025-06-18'],
    ['padded', ' 2025-11-25 ', '2025-11-25'],
  ])('takes the revision from the header (%s)', async (_name, header, expected) => {
    const { endpoint, handlers } = setup();
    const response = await endpoint.handle(
      legacy('tools/list', undefined, { version: header }),
      EXTRA,
    );
    expect(response.status).toBe(200);
    expect(lastCtx(handlers['tools/list'])?.protocolVersion).toBe(expected);
  });

  it('refuses an unknown MCP-Protocol-Version with the platform envelope (not JSON-RPC)', async () => {
    const { endpoint, handlers } = setup();
    const response = await endpoint.handle(
      legacy('tools/list', undefined, { version: '2024-01-01' }),
      EXTRA,
    );
    expect(response.status).toBe(400);
    expect(reply(response)).toEqual({
      error: {
        code: 'UNSUPPORTED_PROTOCOL_VERSION',
        message: expect.any(String),
        details: { supported: [...SUPPORTED_PROTOCOL_VERSIONS], requested: '2024-01-01' },
      },
    });
    expect(SUPPORTED_PROTOCOL_VERSIONS).toContain('2026-07-28');
    expect(handlers['tools/list']).not.toHaveBeenCalled();
  });

  it('refuses a notification with an unknown MCP-Protocol-Version too', async () => {
    const { endpoint } = setup();
    const response = await endpoint.handle(
      raw('{"jsonrpc":"2.0","method":"notifications/initialized"}', {
        'mcp-protocol-version': 'nope',
      }),
      EXTRA,
    );
    expect(response.status).toBe(400);
  });

  it('answers notifications with 202 and no body', async () => {
    const { endpoint } = setup();
    for (const headers of [{}, { 'mcp-protocol-version': '2025-06-18' }]) {
      const response = await endpoint.handle(
        raw('{"jsonrpc":"2.0","method":"notifications/initialized"}', headers),
        EXTRA,
      );
      expect(response).toEqual({ status: 202, headers: {} });
    }
  });

  it('ping answers {}', async () => {
    const { endpoint } = setup();
    const response = await endpoint.handle(legacy('ping', undefined, { id: 4 }), EXTRA);
    expect(response.status).toBe(200);
    expect(reply(response)).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
  });

  it('logging/setLevel validates the level and answers {}', async () => {
    const { endpoint } = setup();
    const good = reply(
      await endpoint.handle(legacy('logging/setLevel', { level: 'warning' }), EXTRA),
    );
    expect(good.result).toEqual({});
    for (const params of [{ level: 'verbose' }, {}, undefined]) {
      const response = await endpoint.handle(legacy('logging/setLevel', params), EXTRA);
      expect(response.status).toBe(200);
      expect(reply(response).error?.code).toBe(-32602);
    }
  });

  it.each(['tools/describe', 'resources/subscribe', 'notifications/initialized'])(
    'answers unknown method %s with 200 / -32601',
    async (method) => {
      const { endpoint } = setup();
      const response = await endpoint.handle(legacy(method, {}, { id: 'q' }), EXTRA);
      expect(response.status).toBe(200);
      expect(reply(response)).toEqual({
        jsonrpc: '2.0',
        id: 'q',
        error: { code: -32601, message: `Method not found: ${method}` },
      });
    },
  );

  it.each(['server/discover', 'completion/complete'])(
    'answers %s, served only on 2026-07-28, with -32601 naming the headers and _meta it lacked',
    async (method) => {
      const { endpoint } = setup();
      const response = await endpoint.handle(legacy(method, {}, { id: 'q' }), EXTRA);
      expect(response.status).toBe(200);
      const { error } = reply(response);
      expect(error?.code).toBe(-32601);
      expect(error?.message).toContain(`${method} is served only on protocol revision 2026-07-28`);
      expect(error?.message).toContain('MCP-Protocol-Version: 2026-07-28');
      expect(error?.message).toContain(`Mcp-Method: ${method}`);
      expect(error?.message).toContain('io.modelcontextprotocol/protocolVersion');
    },
  );

  it('serves a method only when the legacy capabilities advertise it', async () => {
    const { endpoint, handlers } = setup();
    // completions is advertised to modern clients only in CAPABILITIES.
    const response = await endpoint.handle(legacy('completion/complete', {}), EXTRA);
    expect(reply(response).error?.code).toBe(-32601);
    expect(handlers['completion/complete']).not.toHaveBeenCalled();
  });

  it('calls the handler with params, a legacy context and the extra; no Mcp-* headers needed', async () => {
    const { endpoint, handlers } = setup();
    const params = { name: 'get_portal_user', arguments: { id: 'u1' } };
    const response = await endpoint.handle(legacy('tools/call', params, { id: 9 }), EXTRA);
    expect(response.status).toBe(200);
    expect(reply(response)).toEqual({ jsonrpc: '2.0', id: 9, result: CALL_RESULT });
    expect(handlers['tools/call']).toHaveBeenCalledTimes(1);
    expect(handlers['tools/call']).toHaveBeenCalledWith(
      params,
      {
        era: 'legacy',
        protocolVersion: '2025-11-25',
        method: 'tools/call',
        jsonRpcId: 9,
        clientCapabilities: {},
        meta: {},
        channel: expect.objectContaining({ canStream: false }),
      },
      EXTRA,
    );
  });

  it('passes {} when a request has no params', async () => {
    const { endpoint, handlers } = setup();
    await endpoint.handle(legacy('tools/list'), EXTRA);
    expect(handlers['tools/list'].mock.lastCall?.[0]).toEqual({});
  });

  it('never leaks modern fields into legacy results, whoever set them', async () => {
    const leaky = complete(
      {
        ...TOOLS_RESULT,
        resultType: 'complete',
        ttlMs: 5,
        cacheScope: 'public',
        _meta: { [SERVER_INFO_KEY]: SERVER_INFO, 'com.example/trace': 'x' },
      },
      { ttlMs: 60_000, cacheScope: 'public' },
    );
    const { endpoint } = setup({ handlers: { 'tools/list': handlerReturning(leaky) } });
    const parsed = reply(await endpoint.handle(legacy('tools/list'), EXTRA));
    expectNoModernFields(parsed.result);
    expect(parsed.result).toEqual({ ...TOOLS_RESULT, _meta: { 'com.example/trace': 'x' } });
  });

  it('drops a _meta that only held serverInfo', async () => {
    const leaky = complete({ ...TOOLS_RESULT, _meta: { [SERVER_INFO_KEY]: SERVER_INFO } });
    const { endpoint } = setup({ handlers: { 'tools/list': handlerReturning(leaky) } });
    const parsed = reply(await endpoint.handle(legacy('tools/list'), EXTRA));
    expect(parsed.result).toEqual(TOOLS_RESULT);
  });

  it('renders McpError.resourceNotFound as -32002 with data.uri', async () => {
    const uri = 'platform://portal-users/missing';
    const { endpoint } = setup({
      handlers: { 'resources/read': handlerThrowing(McpError.resourceNotFound(uri)) },
    });
    const response = await endpoint.handle(legacy('resources/read', { uri }, { id: 5 }), EXTRA);
    expect(response.status).toBe(200);
    expect(reply(response)).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32002, message: 'Resource not found', data: { uri } },
    });
  });

  it('renders other McpErrors with their code and HTTP 200', async () => {
    const { endpoint } = setup({
      handlers: { 'tools/call': handlerThrowing(new McpError(-32602, 'Unknown tool: nope')) },
    });
    const response = await endpoint.handle(legacy('tools/call', { name: 'nope' }), EXTRA);
    expect(response.status).toBe(200);
    expect(reply(response).error).toEqual({ code: -32602, message: 'Unknown tool: nope' });
  });

  it('treats input_required on a 2025 revision as an internal error', async () => {
    const { endpoint, onInternalError } = setup({
      handlers: {
        'tools/call': handlerReturning({ kind: 'input_required', requestState: 'abc' }),
      },
    });
    const response = await endpoint.handle(legacy('tools/call', { name: 'x' }, { id: 6 }), EXTRA);
    expect(response.status).toBe(200);
    expect(reply(response)).toEqual({
      jsonrpc: '2.0',
      id: 6,
      error: { code: -32603, message: 'Internal error', data: { requestId: REQUEST_ID } },
    });
    expect(onInternalError).toHaveBeenCalledTimes(1);
  });
});

// ------------------------------------------------------------------------------------ era classification

describe('era classification', () => {
  it('treats initialize carrying modern _meta as a modern (removed) method', async () => {
    const { endpoint } = setup();
    const response = await endpoint.handle(
      modern('initialize', { protocolVersion: '2025-11-25', capabilities: {} }),
      EXTRA,
    );
    expect(response.status).toBe(404);
    expect(reply(response).error?.code).toBe(-32601);
  });

  it('treats a modern MCP-Protocol-Version header as modern even without _meta', async () => {
    const { endpoint, handlers } = setup();
    const response = await endpoint.handle(legacy('tools/list', {}, { version: MODERN }), EXTRA);
    expect(response.status).toBe(400);
    expect(reply(response).error?.code).toBe(-32602);
    expect(handlers['tools/list']).not.toHaveBeenCalled();
  });

  it('treats an Mcp-Method header as modern even with a legacy version header', async () => {
    const { endpoint } = setup();
    const response = await endpoint.handle(
      legacy('tools/list', {}, { headers: { 'mcp-method': 'tools/list' } }),
      EXTRA,
    );
    expect(response.status).toBe(400);
    expect(reply(response).error?.code).toBe(-32602);
  });

  it('treats the _meta protocolVersion key as modern even with no headers at all', async () => {
    const { endpoint } = setup();
    const response = await endpoint.handle(
      modern(
        'tools/list',
        {},
        {
          headers: { 'mcp-protocol-version': undefined, 'mcp-method': undefined },
        },
      ),
      EXTRA,
    );
    expect(response.status).toBe(400);
    expect(reply(response).error?.code).toBe(-32020);
  });
});

// ------------------------------------------------------------------------------------ modern

describe('modern era (2026-07-28)', () => {
  describe('server/discover', () => {
    it('returns the static discover result with caching hints and serverInfo in _meta', async () => {
      const { endpoint } = setup();
      const response = await endpoint.handle(modern('server/discover', {}, { id: 201 }), EXTRA);
      expect(response.status).toBe(200);
      expect(reply(response)).toEqual({
        jsonrpc: '2.0',
        id: 201,
        result: {
          resultType: 'complete',
          supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
          capabilities: CAPABILITIES.modern,
          instructions: INSTRUCTIONS,
          ttlMs: 300_000,
          cacheScope: 'public',
          _meta: { [SERVER_INFO_KEY]: SERVER_INFO },
        },
      });
    });

    it('uses the configured ttl', async () => {
      const { endpoint } = setup({ discoverTtlMs: 0 });
      const parsed = reply(await endpoint.handle(modern('server/discover'), EXTRA));
      expect(parsed.result?.ttlMs).toBe(0);
    });

    it('serves a request whose _meta omits clientInfo', async () => {
      const { endpoint } = setup();
      const response = await endpoint.handle(
        modern('server/discover', {}, { meta: { [INFO_KEY]: undefined } }),
        EXTRA,
      );
      expect(response.status).toBe(200);
      expect(reply(response).result?.resultType).toBe('complete');
    });

    it('is not affected by later mutation of the capabilities passed in', async () => {
      const capabilities = structuredClone(CAPABILITIES);
      const { endpoint } = setup({ capabilities });
      capabilities.modern.experimental = { surprise: {} };
      const parsed = reply(await endpoint.handle(modern('server/discover'), EXTRA));
      expect(parsed.result?.capabilities).toEqual(CAPABILITIES.modern);
    });
  });

  describe('a. required _meta', () => {
    it.each([
      ['no params at all', undefined, 'params._meta'],
      ['_meta missing', null, 'params._meta'],
      ['protocolVersion missing', { [PV_KEY]: undefined }, PV_KEY],
      ['protocolVersion not a string', { [PV_KEY]: 20260728 }, PV_KEY],
      ['clientCapabilities missing', { [CAPS_KEY]: undefined }, CAPS_KEY],
      ['clientCapabilities an array', { [CAPS_KEY]: [] }, CAPS_KEY],
      ['logLevel invalid', { 'io.modelcontextprotocol/logLevel': 'loud' }, 'logLevel'],
    ])('rejects %s with 400 / -32602 naming the key', async (_name, meta, key) => {
      const { endpoint, handlers } = setup();
      const request =
        meta === undefined
          ? raw('{"jsonrpc":"2.0","id":101,"method":"tools/list"}', {
              'mcp-protocol-version': MODERN,
              'mcp-method': 'tools/list',
            })
          : modern('tools/list', {}, { id: 101, meta });
      const response = await endpoint.handle(request, EXTRA);
      expect(response.status).toBe(400);
      const parsed = reply(response);
      expect(parsed.id).toBe(101);
      expect(parsed.error?.code).toBe(-32602);
      expect(parsed.error?.message).toContain(key);
      expect(handlers['tools/list']).not.toHaveBeenCalled();
    });

    it('checks _meta before headers: missing version key with a good header is -32602', async () => {
      const { endpoint } = setup();
      const response = await endpoint.handle(
        modern('server/discover', {}, { meta: { [PV_KEY]: undefined } }),
        EXTRA,
      );
      expect(response.status).toBe(400);
      expect(reply(response).error?.code).toBe(-32602);
    });

    it('accepts a valid logLevel', async () => {
      const { endpoint } = setup();
      const response = await endpoint.handle(
        modern('tools/list', {}, { meta: { 'io.modelcontextprotocol/logLevel': 'debug' } }),
        EXTRA,
      );
      expect(response.status).toBe(200);
    });
  });

  describe('b. header/body agreement', () => {
    const call = { name: 'get_portal_user', arguments: {} };

    it.each([
      ['MCP-Protocol-Version missing', 'tools/list', {}, { 'mcp-protocol-version': undefined }],
      [
        'MCP-Protocol-Version different',
        'tools/list',
        {},
        { 'mcp-protocol-version': '2025-11-25' },
      ],
      ['Mcp-Method missing', 'tools/list', {}, { 'mcp-method': undefined }],
      ['Mcp-Method different', 'tools/list', {}, { 'mcp-method': 'prompts/list' }],
      ['Mcp-Method different case', 'tools/list', {}, { 'mcp-method': 'TOOLS/LIST' }],
      ['Mcp-Name missing', 'tools/call', call, { 'mcp-name': undefined }],
      ['Mcp-Name different', 'tools/call', call, { 'mcp-name': 'wrong_tool_name' }],
      ['Mcp-Name different case', 'tools/call', call, { 'mcp-name': 'GET_PORTAL_USER' }],
      ['Mcp-Name invalid base64', 'tools/call', call, { 'mcp-name': '=?base64?SGVsbG8?=' }],
      ['Mcp-Name non-ASCII raw', 'tools/call', call, { 'mcp-name': 'get_portal_usér' }],
      ['Mcp-Name on prompts/get', 'prompts/get', { name: 'onboard' }, { 'mcp-name': 'other' }],
      [
        'Mcp-Name on resources/read',
        'resources/read',
        { uri: 'platform://organization' },
        { 'mcp-name': 'platform://x' },
      ],
      ['Mcp-Name without a body name', 'tools/call', { arguments: {} }, { 'mcp-name': 'x' }],
    ])('rejects %s with 400 / -32020', async (_name, method, params, headers: Headers) => {
      const { endpoint, handlers } = setup();
      const response = await endpoint.handle(modern(method, params, { id: 'h1', headers }), EXTRA);
      expect(response.status).toBe(400);
      const parsed = reply(response);
      expect(parsed.id).toBe('h1');
      expect(parsed.error?.code).toBe(-32020);
      expect(parsed.error?.message).toMatch(/^Header mismatch: /);
      for (const handler of Object.values(handlers)) expect(handler).not.toHaveBeenCalled();
    });

    it.each([
      [
        'surrounding whitespace',
        {
          'mcp-name': '  get_portal_user  ',
          'mcp-method': ' tools/call ',
          'mcp-protocol-version': '\t2026-07-28 ',
        },
      ],
      [
        'a base64-encoded name',
        { 'mcp-name': `=?base64?${Buffer.from('get_portal_user').toString('base64')}?=` },
      ],
    ])('accepts %s', async (_name, headers: Headers) => {
      const { endpoint, handlers } = setup();
      const response = await endpoint.handle(modern('tools/call', call, { headers }), EXTRA);
      expect(response.status).toBe(200);
      expect(handlers['tools/call']).toHaveBeenCalledTimes(1);
    });

    it('compares a decoded non-ASCII name with the body', async () => {
      const { endpoint } = setup();
      const name = 'café_tool';
      const encoded = `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;
      const ok = await endpoint.handle(
        modern('tools/call', { name }, { headers: { 'mcp-name': encoded } }),
        EXTRA,
      );
      expect(ok.status).toBe(200);
    });

    it('treats an uppercase sentinel as a literal value', async () => {
      const { endpoint } = setup();
      const literal = `=?BASE64?${Buffer.from('x').toString('base64')}?=`;
      const asLiteral = await endpoint.handle(
        modern('tools/call', { name: literal }, { headers: { 'mcp-name': literal } }),
        EXTRA,
      );
      expect(asLiteral.status).toBe(200);
      const decodedWouldMatch = await endpoint.handle(
        modern('tools/call', { name: 'x' }, { headers: { 'mcp-name': literal } }),
        EXTRA,
      );
      expect(decodedWouldMatch.status).toBe(400);
      expect(reply(decodedWouldMatch).error?.code).toBe(-32020);
    });

    it('leaves a call with neither a body name nor Mcp-Name to the handler', async () => {
      const { endpoint, handlers } = setup({
        handlers: { 'tools/call': handlerThrowing(new McpError(-32602, 'name is required')) },
      });
      const response = await endpoint.handle(modern('tools/call', { arguments: {} }), EXTRA);
      expect(response.status).toBe(200);
      expect(reply(response).error?.code).toBe(-32602);
      expect(handlers['tools/call']).toHaveBeenCalledTimes(1);
    });

    it('lets a header mismatch win over an unsupported version', async () => {
      const { endpoint } = setup();
      const response = await endpoint.handle(
        modern('server/discover', {}, { id: 302, meta: { [PV_KEY]: 'v999.0.0' } }),
        EXTRA,
      );
      expect(response.status).toBe(400);
      expect(reply(response)).toMatchObject({ id: 302, error: { code: -32020 } });
    });
  });

  describe('c. protocol version', () => {
    it('answers an unsupported version with 400 / -32022, supported = discover list', async () => {
      const { endpoint } = setup();
      const discover = reply(await endpoint.handle(modern('server/discover'), EXTRA));
      const response = await endpoint.handle(
        modern(
          'server/discover',
          {},
          {
            id: 301,
            meta: { [PV_KEY]: 'v999.0.0' },
            headers: { 'mcp-protocol-version': 'v999.0.0' },
          },
        ),
        EXTRA,
      );
      expect(response.status).toBe(400);
      expect(reply(response)).toEqual({
        jsonrpc: '2.0',
        id: 301,
        error: {
          code: -32022,
          message: 'Unsupported protocol version',
          data: { supported: discover.result?.supportedVersions, requested: 'v999.0.0' },
        },
      });
    });

    it('refuses a legacy revision carried in per-request _meta (legacy means initialize)', async () => {
      const { endpoint, handlers } = setup();
      const response = await endpoint.handle(
        modern(
          'tools/list',
          {},
          {
            meta: { [PV_KEY]: '2025-11-25' },
            headers: { 'mcp-protocol-version': '2025-11-25' },
          },
        ),
        EXTRA,
      );
      expect(response.status).toBe(400);
      expect(reply(response).error?.code).toBe(-32022);
      expect(handlers['tools/list']).not.toHaveBeenCalled();
    });
  });

  describe('d. method availability', () => {
    it.each([
      'resources/subscribe',
      'resources/unsubscribe',
      'notifications/initialized',
      'subscriptions/listen',
      'unknown/method',
    ])('answers %s with 404 / -32601', async (method) => {
      const { endpoint } = setup();
      const response = await endpoint.handle(modern(method, {}, { id: 500 }), EXTRA);
      expect(response.status).toBe(404);
      expect(reply(response)).toEqual({
        jsonrpc: '2.0',
        id: 500,
        error: { code: -32601, message: `Method not found: ${method}` },
      });
    });

    it.each(['ping', 'logging/setLevel', 'initialize'])(
      'answers %s, a 2025 method, with 404 / -32601 saying it is not part of 2026-07-28',
      async (method) => {
        const { endpoint } = setup();
        const response = await endpoint.handle(modern(method, {}, { id: 500 }), EXTRA);
        expect(response.status).toBe(404);
        expect(reply(response).error).toEqual({
          code: -32601,
          message:
            `Method not found: ${method} belongs to the 2025 revisions ` +
            '(2025-03-26, 2025-06-18, 2025-11-25) and is not part of 2026-07-28',
        });
      },
    );

    it('answers completion/complete with 404 when no handler (and no capability) exists', async () => {
      const capabilities = {
        legacy: CAPABILITIES.legacy,
        modern: { tools: {}, resources: {}, prompts: {} },
      };
      const { endpoint } = setup({ capabilities, withoutCompletion: true });
      const response = await endpoint.handle(modern('completion/complete', {}), EXTRA);
      expect(response.status).toBe(404);
      const discover = reply(await endpoint.handle(modern('server/discover'), EXTRA));
      expect(discover.result?.capabilities).not.toHaveProperty('completions');
    });

    it('trims a very long unknown method in the message', async () => {
      const { endpoint } = setup();
      const method = `x/${'a'.repeat(5000)}`;
      const parsed = reply(await endpoint.handle(modern(method), EXTRA));
      expect(parsed.error?.message.length).toBeLessThan(200);
    });
  });

  describe('e. dispatch and result shape', () => {
    it('gives a handler the per-request context', async () => {
      const { endpoint, handlers } = setup();
      const caps = { elicitation: { form: {} } };
      const request = modern(
        'tools/call',
        { name: 'get_portal_user', arguments: { id: 'u1' } },
        {
          id: 'r1',
          meta: { [CAPS_KEY]: caps, progressToken: 'p1' },
        },
      );
      await endpoint.handle(request, EXTRA);
      const [params, ctx, extra] = handlers['tools/call'].mock.lastCall ?? [];
      expect(params).toMatchObject({ name: 'get_portal_user', arguments: { id: 'u1' } });
      expect(extra).toBe(EXTRA);
      expect(ctx).toEqual({
        era: 'modern',
        protocolVersion: MODERN,
        method: 'tools/call',
        jsonRpcId: 'r1',
        clientInfo: { name: 'test-client', version: '1.0.0' },
        clientCapabilities: caps,
        meta: {
          [PV_KEY]: MODERN,
          [CAPS_KEY]: caps,
          [INFO_KEY]: { name: 'test-client', version: '1.0.0' },
          progressToken: 'p1',
        },
        channel: expect.objectContaining({ canStream: true }),
      });
    });

    it('omits a malformed clientInfo from the context', async () => {
      const { endpoint, handlers } = setup();
      await endpoint.handle(modern('tools/list', {}, { meta: { [INFO_KEY]: 'me' } }), EXTRA);
      expect(lastCtx(handlers['tools/list'])?.clientInfo).toBeUndefined();
    });

    it('adds resultType, default private caching and serverInfo to a cacheable result', async () => {
      const { endpoint } = setup();
      const response = await endpoint.handle(modern('tools/list', {}, { id: 202 }), EXTRA);
      expect(response.status).toBe(200);
      expect(reply(response)).toEqual({
        jsonrpc: '2.0',
        id: 202,
        result: {
          ...TOOLS_RESULT,
          resultType: 'complete',
          ttlMs: 0,
          cacheScope: 'private',
          _meta: { [SERVER_INFO_KEY]: SERVER_INFO },
        },
      });
    });

    it.each(['resources/list', 'resources/templates/list', 'resources/read', 'prompts/list'])(
      'puts the handler’s cache hint on %s',
      async (method) => {
        const hint: McpCacheHint = { ttlMs: 60_000, cacheScope: 'public' };
        const { endpoint } = setup({
          handlers: { [method]: handlerReturning(complete({ items: [] }, hint)) },
        });
        const params = method === 'resources/read' ? { uri: 'platform://organization' } : {};
        const parsed = reply(await endpoint.handle(modern(method, params), EXTRA));
        expect(parsed.result).toMatchObject({ resultType: 'complete', ...hint });
      },
    );

    it('merges the handler’s _meta with serverInfo', async () => {
      const result = { ...TOOLS_RESULT, _meta: { 'com.example/page': 2 } };
      const { endpoint } = setup({
        handlers: { 'tools/list': handlerReturning(complete(result)) },
      });
      const parsed = reply(await endpoint.handle(modern('tools/list'), EXTRA));
      expect(parsed.result?.[META]).toEqual({
        'com.example/page': 2,
        [SERVER_INFO_KEY]: SERVER_INFO,
      });
    });

    it('adds no caching fields to a non-cacheable result', async () => {
      const { endpoint } = setup();
      const parsed = reply(
        await endpoint.handle(modern('tools/call', { name: 'get_portal_user' }), EXTRA),
      );
      expect(parsed.result).toEqual({
        ...CALL_RESULT,
        resultType: 'complete',
        _meta: { [SERVER_INFO_KEY]: SERVER_INFO },
      });
    });

    it('answers a notification with 202 and validates nothing else', async () => {
      const { endpoint, handlers } = setup();
      const response = await endpoint.handle(
        raw('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}', {
          'mcp-method': 'notifications/cancelled',
        }),
        EXTRA,
      );
      expect(response).toEqual({ status: 202, headers: {} });
      for (const handler of Object.values(handlers)) expect(handler).not.toHaveBeenCalled();
    });

    it('never sets a session header', async () => {
      const { endpoint } = setup();
      const response = await endpoint.handle(
        modern('tools/list', {}, { headers: { 'mcp-session-id': 'abc' } }),
        EXTRA,
      );
      expect(response.headers).toEqual({ 'content-type': 'application/json' });
    });
  });

  describe('input_required (MRTR)', () => {
    const elicitCaps = { [CAPS_KEY]: { elicitation: { form: {} } } };

    it('returns inputRequests and requestState with resultType and no caching fields', async () => {
      const outcome: McpHandlerOutcome = {
        kind: 'input_required',
        inputRequests: { confirm: ELICIT_FORM },
        requestState: 'sealed-state',
      };
      const { endpoint } = setup({ handlers: { 'tools/call': handlerReturning(outcome) } });
      const response = await endpoint.handle(
        modern('tools/call', { name: 'delete_portal_user' }, { id: 2, meta: elicitCaps }),
        EXTRA,
      );
      expect(response.status).toBe(200);
      expect(reply(response)).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: {
          resultType: 'input_required',
          inputRequests: { confirm: ELICIT_FORM },
          requestState: 'sealed-state',
          _meta: { [SERVER_INFO_KEY]: SERVER_INFO },
        },
      });
    });

    it('never puts caching fields on input_required, even for resources/read', async () => {
      const { endpoint } = setup({
        handlers: {
          'resources/read': handlerReturning({ kind: 'input_required', requestState: 's' }),
        },
      });
      const parsed = reply(
        await endpoint.handle(modern('resources/read', { uri: 'platform://organization' }), EXTRA),
      );
      expect(parsed.result).toEqual({
        resultType: 'input_required',
        requestState: 's',
        _meta: { [SERVER_INFO_KEY]: SERVER_INFO },
      });
    });

    it('allows prompts/get to ask for input', async () => {
      const { endpoint } = setup({
        handlers: {
          'prompts/get': handlerReturning({ kind: 'input_required', requestState: 's' }),
        },
      });
      const parsed = reply(await endpoint.handle(modern('prompts/get', { name: 'p' }), EXTRA));
      expect(parsed.result?.resultType).toBe('input_required');
    });

    it('answers 400 / -32021 when the request did not declare elicitation', async () => {
      const outcome: McpHandlerOutcome = {
        kind: 'input_required',
        inputRequests: { confirm: ELICIT_FORM },
        requestState: 'sealed-state',
      };
      const { endpoint, onInternalError } = setup({
        handlers: { 'tools/call': handlerReturning(outcome) },
      });
      const response = await endpoint.handle(
        modern('tools/call', { name: 'delete_portal_user' }, { id: 401 }),
        EXTRA,
      );
      expect(response.status).toBe(400);
      const parsed = reply(response);
      expect(parsed.id).toBe(401);
      expect(parsed.result).toBeUndefined();
      expect(parsed.error?.code).toBe(-32021);
      expect(parsed.error?.data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } });
      expect(onInternalError).not.toHaveBeenCalled();
    });

    it('answers -32021 for URL mode when only form elicitation was declared', async () => {
      const url = {
        method: 'elicitation/create',
        params: { mode: 'url', message: 'm', url: 'https://a' },
      };
      const { endpoint } = setup({
        handlers: {
          'tools/call': handlerReturning({ kind: 'input_required', inputRequests: { u: url } }),
        },
      });
      const response = await endpoint.handle(
        modern('tools/call', { name: 't' }, { meta: { [CAPS_KEY]: { elicitation: {} } } }),
        EXTRA,
      );
      expect(response.status).toBe(400);
      expect(reply(response).error?.data).toEqual({
        requiredCapabilities: { elicitation: { url: {} } },
      });
    });

    it.each([
      ['on tools/list', 'tools/list', { kind: 'input_required', requestState: 's' }],
      [
        'on completion/complete',
        'completion/complete',
        { kind: 'input_required', requestState: 's' },
      ],
      ['with neither inputRequests nor requestState', 'tools/call', { kind: 'input_required' }],
      [
        'with empty inputRequests only',
        'tools/call',
        { kind: 'input_required', inputRequests: {} },
      ],
      [
        'with a malformed input request',
        'tools/call',
        { kind: 'input_required', inputRequests: { a: { method: 'tools/call' } } },
      ],
    ] as const)('is an internal error %s', async (_name, method, outcome: McpHandlerOutcome) => {
      const { endpoint, onInternalError } = setup({
        handlers: { [method]: handlerReturning(outcome) },
      });
      const params = method === 'tools/call' ? { name: 't' } : {};
      const response = await endpoint.handle(modern(method, params, { id: 77 }), EXTRA);
      expect(response.status).toBe(200);
      expect(reply(response)).toEqual({
        jsonrpc: '2.0',
        id: 77,
        error: { code: -32603, message: 'Internal error', data: { requestId: REQUEST_ID } },
      });
      expect(onInternalError).toHaveBeenCalledTimes(1);
    });
  });

  describe('handler errors', () => {
    it('renders McpError.resourceNotFound as -32602 with data.uri', async () => {
      const uri = 'test://nonexistent-resource-for-conformance-testing';
      const { endpoint } = setup({
        handlers: { 'resources/read': handlerThrowing(McpError.resourceNotFound(uri)) },
      });
      const response = await endpoint.handle(modern('resources/read', { uri }, { id: 2 }), EXTRA);
      expect(response.status).toBe(200);
      expect(reply(response)).toEqual({
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32602, message: 'Resource not found', data: { uri } },
      });
    });

    it.each([
      [-32602, 200],
      [-32601, 404],
      [-32020, 400],
      [-32021, 400],
      [-32022, 400],
      [-32600, 400],
      [-31999, 200],
    ])('maps a thrown McpError %i to HTTP %i', async (code, status) => {
      const { endpoint, onInternalError } = setup({
        handlers: { 'tools/call': handlerThrowing(new McpError(code, 'nope', { why: 1 })) },
      });
      const response = await endpoint.handle(modern('tools/call', { name: 't' }, { id: 3 }), EXTRA);
      expect(response.status).toBe(status);
      expect(reply(response)).toEqual({
        jsonrpc: '2.0',
        id: 3,
        error: { code, message: 'nope', data: { why: 1 } },
      });
      expect(onInternalError).not.toHaveBeenCalled();
    });

    it('lets a handler signal a missing capability itself', async () => {
      const { endpoint } = setup({
        handlers: {
          'tools/call': handlerThrowing(McpError.missingClientCapability({ sampling: {} })),
        },
      });
      const response = await endpoint.handle(modern('tools/call', { name: 't' }), EXTRA);
      expect(response.status).toBe(400);
      expect(reply(response).error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { sampling: {} } },
      });
    });
  });
});

// ------------------------------------------------------------------------------------ internal errors

describe('internal errors', () => {
  it.each([
    ['legacy', () => legacy('tools/call', { name: 't' }, { id: 12 })],
    ['modern', () => modern('tools/call', { name: 't' }, { id: 12 })],
  ])('are sanitised on %s and reported once', async (era, request) => {
    const failure = new Error('connect ECONNREFUSED db-password=hunter2');
    const { endpoint, onInternalError } = setup({
      handlers: { 'tools/call': handlerThrowing(failure) },
    });
    const response = await endpoint.handle(request(), EXTRA);
    expect(response.status).toBe(200);
    expect(response.body).not.toContain('hunter2');
    expect(response.body).not.toContain('ECONNREFUSED');
    expect(response.body).not.toContain('at ');
    expect(reply(response)).toEqual({
      jsonrpc: '2.0',
      id: 12,
      error: { code: -32603, message: 'Internal error', data: { requestId: REQUEST_ID } },
    });
    expect(onInternalError).toHaveBeenCalledTimes(1);
    const [error, ctx, extra] = onInternalError.mock.lastCall ?? [];
    expect(error).toBe(failure);
    expect(ctx).toMatchObject({ era, method: 'tools/call', jsonRpcId: 12 });
    expect(extra).toBe(EXTRA);
  });

  it('treats a thrown non-Error value the same way', async () => {
    const { endpoint, onInternalError } = setup({
      handlers: { 'tools/call': handlerThrowing('boom') },
    });
    const parsed = reply(await endpoint.handle(modern('tools/call', { name: 't' }), EXTRA));
    expect(parsed.error).toEqual({
      code: -32603,
      message: 'Internal error',
      data: { requestId: REQUEST_ID },
    });
    expect(onInternalError).toHaveBeenCalledTimes(1);
  });

  it('covers a result that cannot be serialised', async () => {
    const { endpoint, onInternalError } = setup({
      handlers: { 'tools/call': handlerReturning(complete({ big: 10n })) },
    });
    const parsed = reply(await endpoint.handle(modern('tools/call', { name: 't' }), EXTRA));
    expect(parsed.error?.code).toBe(-32603);
    expect(onInternalError).toHaveBeenCalledTimes(1);
  });

  it.each([
    '{"ttlMs":-1,"cacheScope":"private"}',
    '{"ttlMs":1.5,"cacheScope":"private"}',
    '{"ttlMs":10,"cacheScope":"shared"}',
  ])('covers an invalid cache hint %s', async (json) => {
    const hint: McpCacheHint = JSON.parse(json);
    const { endpoint, onInternalError } = setup({
      handlers: { 'tools/list': handlerReturning(complete(TOOLS_RESULT, hint)) },
    });
    const parsed = reply(await endpoint.handle(modern('tools/list'), EXTRA));
    expect(parsed.error?.code).toBe(-32603);
    expect(onInternalError).toHaveBeenCalledTimes(1);
  });
});

// ------------------------------------------------------------------------------------ observe

describe('observe', () => {
  const cases: [string, () => McpHttpRequest, Omit<McpObservation, 'durationMs'>][] = [
    [
      'legacy success',
      () => legacy('tools/list'),
      { era: 'legacy', protocolVersion: '2025-11-25', method: 'tools/list', outcome: 'ok' },
    ],
    [
      'legacy initialize',
      () => initialize('2025-06-18'),
      { era: 'legacy', protocolVersion: '2025-06-18', method: 'initialize', outcome: 'ok' },
    ],
    [
      'legacy unknown method',
      () => legacy('tools/describe'),
      {
        era: 'legacy',
        protocolVersion: '2025-11-25',
        method: 'unknown',
        outcome: 'rpc_error:-32601',
      },
    ],
    [
      'legacy refused version',
      () => legacy('tools/list', undefined, { version: 'bogus' }),
      { era: 'legacy', protocolVersion: 'unknown', method: 'tools/list', outcome: 'http_400' },
    ],
    [
      'legacy notification',
      () => raw('{"jsonrpc":"2.0","method":"notifications/initialized"}'),
      {
        era: 'legacy',
        protocolVersion: '2025-03-26',
        method: 'notifications/initialized',
        outcome: 'ok',
      },
    ],
    [
      'parse error',
      () => raw('nope'),
      {
        era: 'legacy',
        protocolVersion: '2025-03-26',
        method: 'unknown',
        outcome: 'rpc_error:-32700',
      },
    ],
    [
      'modern success',
      () => modern('server/discover'),
      { era: 'modern', protocolVersion: MODERN, method: 'server/discover', outcome: 'ok' },
    ],
    [
      'modern unknown method',
      () => modern('x/y'),
      { era: 'modern', protocolVersion: MODERN, method: 'unknown', outcome: 'rpc_error:-32601' },
    ],
    [
      'modern unsupported version',
      () =>
        modern(
          'tools/list',
          {},
          {
            meta: { [PV_KEY]: 'v9' },
            headers: { 'mcp-protocol-version': 'v9' },
          },
        ),
      {
        era: 'modern',
        protocolVersion: 'unknown',
        method: 'tools/list',
        outcome: 'rpc_error:-32022',
      },
    ],
    [
      'modern missing capability',
      () => modern('tools/call', { name: 'needs_input' }),
      { era: 'modern', protocolVersion: MODERN, method: 'tools/call', outcome: 'rpc_error:-32021' },
    ],
  ];

  it.each(cases)('reports %s once with bounded labels', async (_name, request, expected) => {
    const { endpoint, observe } = setup({
      handlers: {
        'tools/call': handlerReturning({
          kind: 'input_required',
          inputRequests: { confirm: ELICIT_FORM },
        }),
      },
    });
    await endpoint.handle(request(), EXTRA);
    expect(observe).toHaveBeenCalledTimes(1);
    const event = observe.mock.lastCall?.[0];
    expect(event).toMatchObject(expected);
    expect(event?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reports input_required', async () => {
    const { endpoint, observe } = setup({
      handlers: { 'tools/call': handlerReturning({ kind: 'input_required', requestState: 's' }) },
    });
    await endpoint.handle(modern('tools/call', { name: 't' }), EXTRA);
    expect(observe).toHaveBeenCalledTimes(1);
    expect(observe.mock.lastCall?.[0].outcome).toBe('input_required');
  });

  it('says when a tools/call result is isError (toolError), in both eras, and only then', async () => {
    const failing = { kind: 'complete', result: { ...CALL_RESULT, isError: true } } as const;
    const { endpoint, observe } = setup({ handlers: { 'tools/call': handlerReturning(failing) } });
    await endpoint.handle(modern('tools/call', { name: 't' }), EXTRA);
    await endpoint.handle(legacy('tools/call', { name: 't' }), EXTRA);
    expect(observe.mock.calls.map(([e]) => [e.outcome, e.toolError])).toEqual([
      ['ok', true],
      ['ok', true],
    ]);

    const fine = setup({
      handlers: { 'tools/call': handlerReturning({ kind: 'complete', result: CALL_RESULT }) },
    });
    await fine.endpoint.handle(modern('tools/call', { name: 't' }), EXTRA);
    await fine.endpoint.handle(modern('tools/list'), EXTRA);
    expect(fine.observe.mock.calls.map(([e]) => e.toolError)).toEqual([false, false]);
  });

  it('reports an internal error as rpc_error:-32603', async () => {
    const { endpoint, observe } = setup({
      handlers: { 'tools/list': handlerThrowing(new Error('x')) },
    });
    await endpoint.handle(modern('tools/list'), EXTRA);
    expect(observe).toHaveBeenCalledTimes(1);
    expect(observe.mock.lastCall?.[0].outcome).toBe('rpc_error:-32603');
  });
});

// ------------------------------------------------------------------------------------ construction

function base(): McpEndpointOptions<Extra> {
  return {
    serverInfo: SERVER_INFO,
    capabilities: CAPABILITIES,
    handlers: defaultHandlers(),
    onInternalError: () => undefined,
  };
}

describe('construction', () => {
  it('refuses a capability whose methods have no handler', () => {
    const { 'tools/call': _omitted, ...handlers } = defaultHandlers();
    expect(() => new McpEndpointService<Extra>({ ...base(), handlers })).toThrow(/tools\/call/);
  });

  it.each([
    { tools: { listChanged: true } },
    { resources: { subscribe: true } },
    { prompts: { listChanged: true } },
  ])('refuses to advertise what it cannot serve: %o', (modernCaps) => {
    expect(
      () =>
        new McpEndpointService<Extra>({
          ...base(),
          capabilities: { legacy: CAPABILITIES.legacy, modern: modernCaps },
        }),
    ).toThrow(/listChanged\/subscribe/);
  });

  it('refuses missing server identity and a bad discover ttl', () => {
    expect(
      () => new McpEndpointService<Extra>({ ...base(), serverInfo: { name: '', version: '1' } }),
    ).toThrow(/name and a version/);
    expect(() => new McpEndpointService<Extra>({ ...base(), discoverTtlMs: -5 })).toThrow(
      /discoverTtlMs/,
    );
  });
});

/** A frozen result whose `tools` getter counts how often it is serialised. */
function countingResult(frozen: boolean) {
  let reads = 0;
  const result = {
    get tools() {
      reads++;
      return TOOLS_RESULT.tools;
    },
  };
  if (frozen) Object.freeze(result);
  return { result, reads: () => reads };
}

describe('results rendered once', () => {
  it('a frozen result returned again is serialised once per era and cache hint, with each request’s own id', async () => {
    const { result, reads } = countingResult(true);
    const hint: McpCacheHint = { ttlMs: 300_000, cacheScope: 'public' };
    const { endpoint } = setup({
      handlers: { 'tools/list': handlerReturning(complete(result, hint)) },
    });
    const first = reply(await endpoint.handle(modern('tools/list', {}, { id: 'm-1' }), EXTRA));
    const second = reply(await endpoint.handle(modern('tools/list', {}, { id: 'm-2' }), EXTRA));
    expect(reads()).toBe(1);
    expect([first.id, second.id]).toEqual(['m-1', 'm-2']);
    expect(second.result).toEqual(first.result);
    expect(second.result).toMatchObject({ ...TOOLS_RESULT, resultType: 'complete', ...hint });

    const old = reply(await endpoint.handle(legacy('tools/list', {}, { id: 'l-1' }), EXTRA));
    const again = reply(await endpoint.handle(legacy('tools/list', {}, { id: 'l-2' }), EXTRA));
    expect(reads()).toBe(2);
    expect(old.id).toBe('l-1');
    expect(again.id).toBe('l-2');
    expect(again.result).toEqual(TOOLS_RESULT);
    expectNoModernFields(again.result);
  });

  it('a result that may still change is serialised on every request', async () => {
    const { result, reads } = countingResult(false);
    const { endpoint } = setup({ handlers: { 'tools/list': handlerReturning(complete(result)) } });
    await endpoint.handle(modern('tools/list'), EXTRA);
    await endpoint.handle(modern('tools/list'), EXTRA);
    expect(reads()).toBe(2);
  });
});

describe('the tasks extension (2026-07-28)', () => {
  const TASKS = 'io.modelcontextprotocol/tasks';
  const WITH_TASKS = {
    legacy: CAPABILITIES.legacy,
    modern: { ...CAPABILITIES.modern, extensions: { [TASKS]: {} } },
  };
  const TASK = {
    taskId: 'task-1',
    status: 'working',
    createdAt: '2026-12-04T10:00:00.000Z',
    lastUpdatedAt: '2026-12-04T10:00:00.000Z',
    ttlMs: 60_000,
    pollIntervalMs: 500,
  };
  const taskHandlers = () => ({
    'tasks/get': handlerReturning(complete({ ...TASK, status: 'completed' })),
    'tasks/update': handlerReturning(complete({})),
    'tasks/cancel': handlerReturning(complete({})),
  });

  it('a tools/call answered with a task is a flat CreateTaskResult (resultType "task")', async () => {
    const { endpoint } = setup({
      capabilities: WITH_TASKS,
      handlers: {
        ...taskHandlers(),
        'tools/call': handlerReturning({ kind: 'task', task: TASK }),
      },
    });
    const res = await endpoint.handle(modern('tools/call', { name: 'slow' }), EXTRA);
    expect(res.status).toBe(200);
    const body = reply(res);
    expect(body.result).toMatchObject({ ...TASK, resultType: 'task' });
    expect(body.result).not.toHaveProperty('task');
    expect(body.result?.[META]).toEqual({ [SERVER_INFO_KEY]: SERVER_INFO });
  });

  it('tasks/* are served only where the extension is advertised, with Mcp-Name mirroring taskId', async () => {
    const { endpoint } = setup({
      capabilities: WITH_TASKS,
      handlers: taskHandlers(),
    });
    const got = reply(
      await endpoint.handle(
        modern('tasks/get', { taskId: 'task-1' }, { headers: { 'mcp-name': 'task-1' } }),
        EXTRA,
      ),
    );
    expect(got.result).toMatchObject({ taskId: 'task-1', resultType: 'complete' });
    const mismatch = await endpoint.handle(
      modern('tasks/cancel', { taskId: 'task-1' }, { headers: { 'mcp-name': 'task-2' } }),
      EXTRA,
    );
    expect(mismatch.status).toBe(400);
    expect(reply(mismatch).error?.code).toBe(-32020);
    const missing = await endpoint.handle(modern('tasks/get', { taskId: 'task-1' }), EXTRA);
    expect(reply(missing).error?.code).toBe(-32020);
    // The 2025 revisions are not offered the extension.
    expect(
      reply(await endpoint.handle(legacy('tasks/get', { taskId: 'x' }), EXTRA)).error?.code,
    ).toBe(-32601);
    // Not advertised: not served.
    const { endpoint: plain } = setup({ handlers: taskHandlers() });
    const none = await plain.handle(
      modern('tasks/get', { taskId: 'x' }, { headers: { 'mcp-name': 'x' } }),
      EXTRA,
    );
    expect(none.status).toBe(404);
    const discover = reply(await endpoint.handle(modern('server/discover'), EXTRA));
    expect(discover.result?.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
  });

  it('refuses to advertise the extension without its handlers, and a task from another method', async () => {
    expect(() => setup({ capabilities: WITH_TASKS })).toThrow(/tasks\/get has no handler/);
    const { endpoint, onInternalError } = setup({
      capabilities: WITH_TASKS,
      handlers: {
        ...taskHandlers(),
        'prompts/get': handlerReturning({ kind: 'task', task: TASK }),
      },
    });
    const res = await endpoint.handle(modern('prompts/get', { name: 'p' }), EXTRA);
    expect(reply(res).error?.code).toBe(-32603);
    expect(onInternalError).toHaveBeenCalledOnce();
  });
});
