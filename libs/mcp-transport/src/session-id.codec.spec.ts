import { createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { McpEndpointService } from './mcp-endpoint.service.js';
import type {
  McpHandlerOutcome,
  McpHttpRequest,
  McpMethodHandler,
  McpObservation,
} from './mcp-endpoint.types.js';
import { MAX_SESSION_ID_LENGTH, McpSessionIdCodec } from './session-id.codec.js';

const SECRET_A = 'a'.repeat(32);
const SECRET_B = 'b'.repeat(32);

describe('McpSessionIdCodec', () => {
  it('carries the client name and version, as visible ASCII, unique per issue', () => {
    const codec = new McpSessionIdCodec([SECRET_A]);
    const first = codec.issue({ name: 'Claude Code', version: '2.1.0' });
    const second = codec.issue({ name: 'Claude Code', version: '2.1.0' });
    expect(first).toMatch(/^[\x21-\x7e]+$/);
    expect(first).not.toBe(second);
    expect(codec.read(first)).toEqual({ name: 'Claude Code', version: '2.1.0' });
    expect(codec.read(second)).toEqual({ name: 'Claude Code', version: '2.1.0' });
    expect(codec.read(codec.issue({ name: 'cli' }))).toEqual({ name: 'cli' });
  });

  it('remembers whether the client declared URL-mode elicitation (and nothing else)', () => {
    const codec = new McpSessionIdCodec([SECRET_A]);
    const url = codec.issue({ name: 'agent' }, { urlElicitation: true });
    expect(codec.readSession(url)).toEqual({ clientInfo: { name: 'agent' }, urlElicitation: true });
    expect(codec.read(url)).toEqual({ name: 'agent' });
    for (const id of [
      codec.issue({ name: 'agent' }),
      codec.issue({ name: 'agent' }, { urlElicitation: false }),
    ]) {
      expect(codec.readSession(id)).toEqual({
        clientInfo: { name: 'agent' },
        urlElicitation: false,
      });
    }
    // A signed payload whose flag is anything but 1 is not ours.
    const body = Buffer.from(JSON.stringify({ v: 1, n: 'agent', r: 'x', u: true })).toString(
      'base64url',
    );
    const mac = createHmac(
      'sha256',
      createHmac('sha256', SECRET_A).update('mcp-session-id v1').digest(),
    )
      .update(body)
      .digest('base64url');
    expect(codec.readSession(`${body}.${mac}`)).toBeUndefined();
  });

  it('keeps non-ASCII names (the id itself stays ASCII)', () => {
    const codec = new McpSessionIdCodec([SECRET_A]);
    const id = codec.issue({ name: 'Agente São Paulo 😀', version: 'β' });
    expect(id).toMatch(/^[\x21-\x7e]+$/);
    expect(codec.read(id)).toEqual({ name: 'Agente São Paulo 😀', version: 'β' });
  });

  it('refuses a tampered payload, a tampered MAC and a foreign key', () => {
    const codec = new McpSessionIdCodec([SECRET_A]);
    const id = codec.issue({ name: 'good', version: '1' });
    const [body, mac] = id.split('.');
    const forged = Buffer.from(JSON.stringify({ v: 1, n: 'evil', ver: '1', r: 'x' })).toString(
      'base64url',
    );
    expect(codec.read(`${forged}.${mac}`)).toBeUndefined();
    const flipped = `${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BA' : 'AA'}`;
    expect(codec.read(`${body}.${flipped}`)).toBeUndefined();
    expect(new McpSessionIdCodec([SECRET_B]).read(id)).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['no dot', 'abc'],
    ['two dots', 'a.b.c'],
    ['not base64url', 'a+b.c/d'],
    ['a short MAC', `${Buffer.from('{}').toString('base64url')}.AAAA`],
    ['too long', 'a'.repeat(MAX_SESSION_ID_LENGTH + 1)],
    ['a UUID (another server)', '1868a90c-3bd5-4c4b-8f1e-6f3c2a3b4c5d'],
  ])('refuses a malformed id (%s)', (_name, id) => {
    expect(new McpSessionIdCodec([SECRET_A]).read(id)).toBeUndefined();
  });

  it.each([
    ['another version', { v: 2, n: 'x', r: 'y' }],
    ['no name', { v: 1, r: 'y' }],
    ['a name that normalises to nothing', { v: 1, n: '\u0000 ', r: 'y' }],
    ['a numeric version', { v: 1, n: 'x', ver: 1, r: 'y' }],
    ['an unknown key', { v: 1, n: 'x', r: 'y', admin: true }],
    ['not an object', ['x']],
  ])('refuses an authentic payload with %s', (_name, payload) => {
    // Signed exactly as the codec signs (key derived from the secret), so only the parser decides.
    const key = createHmac('sha256', SECRET_A).update('mcp-session-id v1').digest();
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    const mac = createHmac('sha256', key).update(body).digest('base64url');
    expect(new McpSessionIdCodec([SECRET_A]).read(`${body}.${mac}`)).toBeUndefined();
  });

  it('re-normalises an authentic name on the way out', () => {
    const key = createHmac('sha256', SECRET_A).update('mcp-session-id v1').digest();
    const body = Buffer.from(JSON.stringify({ v: 1, n: ' a\u0007b ', r: 'y' })).toString(
      'base64url',
    );
    const mac = createHmac('sha256', key).update(body).digest('base64url');
    expect(new McpSessionIdCodec([SECRET_A]).read(`${body}.${mac}`)).toEqual({ name: 'ab' });
  });

  it('verifies with every configured secret and signs with the first (rotation)', () => {
    const old = new McpSessionIdCodec([SECRET_A]);
    const rotated = new McpSessionIdCodec([SECRET_B, SECRET_A]);
    const issuedBefore = old.issue({ name: 'before' });
    expect(rotated.read(issuedBefore)).toEqual({ name: 'before' });
    const issuedAfter = rotated.issue({ name: 'after' });
    expect(new McpSessionIdCodec([SECRET_B]).read(issuedAfter)).toEqual({ name: 'after' });
    expect(old.read(issuedAfter)).toBeUndefined();
  });

  it('derives its key: a MAC made with the raw secret does not verify', () => {
    const body = Buffer.from(JSON.stringify({ v: 1, n: 'raw', r: 'n' })).toString('base64url');
    const rawMac = createHmac('sha256', SECRET_A).update(body).digest('base64url');
    expect(new McpSessionIdCodec([SECRET_A]).read(`${body}.${rawMac}`)).toBeUndefined();
  });

  it('needs a secret', () => {
    expect(() => new McpSessionIdCodec([])).toThrow(/SERVER_SECRET_KEYS/);
  });
});

// ------------------------------------------------------------------------------------ endpoint

interface Extra {
  requestId: string;
}
const EXTRA: Extra = { requestId: 'req-1' };
const JSON_HEADERS = { 'content-type': 'application/json' };

function setup(withSessions = true) {
  const codec = new McpSessionIdCodec([SECRET_A]);
  const toolsList = vi.fn<McpMethodHandler<Extra>>(() =>
    Promise.resolve<McpHandlerOutcome>({ kind: 'complete', result: { tools: [] } }),
  );
  const observe = vi.fn<(event: McpObservation) => void>();
  const endpoint = new McpEndpointService<Extra>({
    serverInfo: { name: 'platform-mcp', version: '1.0.0' },
    capabilities: { legacy: { tools: {} }, modern: {} },
    handlers: { 'tools/list': toolsList, 'tools/call': toolsList },
    onInternalError: () => undefined,
    observe,
    sessionIds: withSessions ? codec : undefined,
  });
  return { endpoint, codec, toolsList, observe };
}

function request(body: unknown, headers: Record<string, string> = {}): McpHttpRequest {
  return {
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify(body),
    requestId: 'req-1',
  };
}

function initialize(clientInfo: unknown, headers: Record<string, string> = {}): McpHttpRequest {
  return request(
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo },
    },
    headers,
  );
}

const TOOLS_LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const V2025 = { 'mcp-protocol-version': '2025-11-25' };

describe('2025 session ids on the endpoint', () => {
  it('issues one at initialize, carrying clientInfo normalised', async () => {
    const { endpoint, codec } = setup();
    const response = await endpoint.handle(
      initialize({ name: '  Claude\u0000 Code \n', version: '2.1.0\u0007' }),
      EXTRA,
    );
    expect(response.status).toBe(200);
    const id = response.headers['mcp-session-id'];
    expect(id).toBeTypeOf('string');
    expect(codec.read(id)).toEqual({ name: 'Claude Code', version: '2.1.0' });
  });

  it('issues none when clientInfo has no usable name, or when session ids are off', async () => {
    const { endpoint } = setup();
    for (const info of [undefined, {}, { name: ' \u0000 ' }, { name: 42 }, 'cli']) {
      const response = await endpoint.handle(initialize(info), EXTRA);
      expect(response.status).toBe(200);
      expect(response.headers).not.toHaveProperty('mcp-session-id');
    }
    const off = setup(false);
    const response = await off.endpoint.handle(initialize({ name: 'c', version: '1' }), EXTRA);
    expect(response.headers).not.toHaveProperty('mcp-session-id');
  });

  it('hands the clientInfo of a valid session id to the handler of a later request', async () => {
    const { endpoint, toolsList } = setup();
    const init = await endpoint.handle(initialize({ name: 'inspector', version: '0.9' }), EXTRA);
    const sessionId = init.headers['mcp-session-id'];
    const notified = await endpoint.handle(
      request(
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { ...V2025, 'mcp-session-id': sessionId },
      ),
      EXTRA,
    );
    expect(notified.status).toBe(202);
    const response = await endpoint.handle(
      request(TOOLS_LIST, { ...V2025, 'mcp-session-id': ` ${sessionId} ` }),
      EXTRA,
    );
    expect(response.status).toBe(200);
    expect(toolsList.mock.lastCall?.[1].clientInfo).toEqual({ name: 'inspector', version: '0.9' });
  });

  it('serves a request without a session id, with no clientInfo', async () => {
    const { endpoint, toolsList } = setup();
    const response = await endpoint.handle(request(TOOLS_LIST, V2025), EXTRA);
    expect(response.status).toBe(200);
    expect(toolsList.mock.lastCall?.[1].clientInfo).toBeUndefined();
  });

  it.each([
    ['a tampered id', (id: string) => `${id.slice(0, 4)}x${id.slice(5)}`],
    ['a foreign id', () => new McpSessionIdCodec([SECRET_B]).issue({ name: 'other' })],
    ['a non-signed id', () => '1868a90c-3bd5-4c4b-8f1e-6f3c2a3b4c5d'],
  ])(
    'answers %s with 404 SESSION_NOT_FOUND, running nothing',
    async (_name, make: (id: string) => string) => {
      const { endpoint, toolsList, observe } = setup();
      const init = await endpoint.handle(initialize({ name: 'c', version: '1' }), EXTRA);
      const bad = make(init.headers['mcp-session-id']);
      for (const body of [TOOLS_LIST, { jsonrpc: '2.0', method: 'notifications/initialized' }]) {
        const response = await endpoint.handle(
          request(body, { ...V2025, 'mcp-session-id': bad }),
          EXTRA,
        );
        expect(response.status).toBe(404);
        expect(JSON.parse(response.body ?? '{}')).toMatchObject({
          error: { code: 'SESSION_NOT_FOUND' },
        });
      }
      expect(toolsList).not.toHaveBeenCalled();
      expect(observe.mock.lastCall?.[0]).toMatchObject({ era: 'legacy', outcome: 'http_404' });
    },
  );

  it('ignores a session id sent with initialize (it starts a new session)', async () => {
    const { endpoint, codec } = setup();
    const response = await endpoint.handle(
      initialize({ name: 'fresh' }, { 'mcp-session-id': 'garbage' }),
      EXTRA,
    );
    expect(response.status).toBe(200);
    expect(codec.read(response.headers['mcp-session-id'])).toEqual({ name: 'fresh' });
  });

  it('ignores the header in the 2026-07-28 era, which has no sessions', async () => {
    const { endpoint } = setup();
    const response = await endpoint.handle(
      request(
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'server/discover',
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        },
        {
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'server/discover',
          'mcp-session-id': 'garbage',
        },
      ),
      EXTRA,
    );
    expect(response.status).toBe(200);
  });

  it('without session ids configured, a session id header is ignored', async () => {
    const { endpoint, toolsList } = setup(false);
    const response = await endpoint.handle(
      request(TOOLS_LIST, { ...V2025, 'mcp-session-id': 'garbage' }),
      EXTRA,
    );
    expect(response.status).toBe(200);
    expect(toolsList).toHaveBeenCalledOnce();
  });
});
