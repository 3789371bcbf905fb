import { describe, expect, it } from 'vitest';
import { McpEndpointService } from './mcp-endpoint.service.js';
import type {
  McpHandlerOutcome,
  McpHttpRequest,
  McpHttpResponse,
  McpMethodHandler,
  McpObservation,
} from './mcp-endpoint.types.js';
import { ClientRequestFailed } from './pending-client-requests.js';

interface Extra {
  owner: string;
}

const MODERN = '2026-07-28';
const SSE_ACCEPT = 'application/json, text/event-stream';
const DONE: McpHandlerOutcome = {
  kind: 'complete',
  result: { content: [{ type: 'text', text: 'done' }] },
};

function endpointWith(call: McpMethodHandler<Extra>, clientRequestTimeoutMs = 5_000) {
  const observed: McpObservation[] = [];
  const endpoint = new McpEndpointService<Extra>({
    serverInfo: { name: 'test', version: '1.0.0' },
    capabilities: {
      legacy: { tools: {}, logging: {} },
      modern: { tools: {} },
    },
    handlers: {
      'tools/list': () => Promise.resolve({ kind: 'complete', result: { tools: [] } }),
      'tools/call': call,
    },
    onInternalError: () => undefined,
    observe: (event) => observed.push(event),
    ownerOf: (extra) => extra.owner,
    clientRequestTimeoutMs,
  });
  return { endpoint, observed };
}

function modernCall(
  meta: Record<string, unknown> = {},
  accept: string | undefined = SSE_ACCEPT,
  id: number | string = 1,
): McpHttpRequest {
  const headers: Record<string, string> = {
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': 'work',
  };
  if (accept !== undefined) headers.accept = accept;
  const params = {
    name: 'work',
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {},
      ...meta,
    },
  };
  return {
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
    requestId: 'r',
  };
}

function legacyMessage(
  message: Record<string, unknown>,
  headers: Record<string, string> = {},
): McpHttpRequest {
  return {
    headers: { 'mcp-protocol-version': '2025-11-25', accept: SSE_ACCEPT, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    requestId: 'r',
  };
}

/** Reads SSE events one at a time as the server writes them. */
function eventsOf(response: McpHttpResponse) {
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toBe('text/event-stream');
  const iterator = response.stream!.chunks[Symbol.asyncIterator]();
  return {
    async next(): Promise<Record<string, unknown> | undefined> {
      const { value, done } = await iterator.next();
      if (done === true) return undefined;
      const match = /^event: message\ndata: (.*)\n\n$/s.exec(value);
      expect(match, value).not.toBeNull();
      const event: Record<string, unknown> = JSON.parse(match![1]);
      return event;
    },
    async rest(): Promise<Record<string, unknown>[]> {
      const all: Record<string, unknown>[] = [];
      for (let e = await this.next(); e !== undefined; e = await this.next()) all.push(e);
      return all;
    },
  };
}

describe('request-scoped streaming (SSE response of a POST)', () => {
  it('sends progress before the result when the request has a progressToken and accepts SSE', async () => {
    const { endpoint, observed } = endpointWith(async (_p, ctx) => {
      for (const step of [0, 50, 100]) ctx.channel.progress(step, 100, `step ${step}`);
      return DONE;
    });
    const events = await eventsOf(
      await endpoint.handle(modernCall({ progressToken: 'tok' }), { owner: 'a' }),
    ).rest();
    expect(events.slice(0, 3)).toEqual(
      [0, 50, 100].map((progress) => ({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress, total: 100, message: `step ${progress}` },
      })),
    );
    expect(events[3]).toMatchObject({ id: 1, result: { resultType: 'complete' } });
    expect(events).toHaveLength(4);
    expect(observed).toEqual([expect.objectContaining({ method: 'tools/call', outcome: 'ok' })]);
  });

  it('answers plain JSON when nothing is sent first, or the client did not accept a stream', async () => {
    const { endpoint } = endpointWith(async (_p, ctx) => {
      ctx.channel.progress(1);
      return DONE;
    });
    const noToken = await endpoint.handle(modernCall(), { owner: 'a' });
    expect(noToken.headers['content-type']).toBe('application/json');
    expect(noToken.stream).toBeUndefined();
    const jsonOnly = await endpoint.handle(
      modernCall({ progressToken: 'tok' }, 'application/json'),
      { owner: 'a' },
    );
    expect(jsonOnly.stream).toBeUndefined();
    expect(JSON.parse(jsonOnly.body!)).toMatchObject({ result: { resultType: 'complete' } });
  });

  it('refuses progress that does not increase (a handler bug becomes -32603 on the stream)', async () => {
    const { endpoint } = endpointWith(async (_p, ctx) => {
      ctx.channel.progress(5);
      ctx.channel.progress(5);
      return DONE;
    });
    const events = await eventsOf(
      await endpoint.handle(modernCall({ progressToken: 7 }), { owner: 'a' }),
    ).rest();
    expect(events).toEqual([
      expect.objectContaining({ params: { progressToken: 7, progress: 5 } }),
      expect.objectContaining({ id: 1, error: expect.objectContaining({ code: -32603 }) }),
    ]);
  });

  it('2026-07-28: log messages only at or above the request’s _meta logLevel, none without it', async () => {
    const { endpoint } = endpointWith(async (_p, ctx) => {
      ctx.channel.log('debug', 'noise');
      ctx.channel.log('warning', 'careful', 'fixture');
      return DONE;
    });
    const events = await eventsOf(
      await endpoint.handle(modernCall({ 'io.modelcontextprotocol/logLevel': 'info' }), {
        owner: 'a',
      }),
    ).rest();
    expect(events[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'warning', data: 'careful', logger: 'fixture' },
    });
    expect(events).toHaveLength(2);
    const silent = await endpoint.handle(modernCall(), { owner: 'a' });
    expect(silent.stream).toBeUndefined();
  });

  it('2025: honours the level the same caller set with logging/setLevel; another caller gets none', async () => {
    const { endpoint } = endpointWith(async (_p, ctx) => {
      ctx.channel.log('info', 'started');
      ctx.channel.log('error', 'failed');
      return DONE;
    });
    const set = await endpoint.handle(
      legacyMessage({ id: 1, method: 'logging/setLevel', params: { level: 'warning' } }),
      { owner: 'a' },
    );
    expect(JSON.parse(set.body!)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const call = legacyMessage({ id: 2, method: 'tools/call', params: { name: 'work' } });
    const events = await eventsOf(await endpoint.handle(call, { owner: 'a' })).rest();
    expect(events.map((e) => e.method ?? 'result')).toEqual(['notifications/message', 'result']);
    expect(events[0]).toMatchObject({ params: { level: 'error', data: 'failed' } });
    const other = await endpoint.handle(call, { owner: 'b' });
    expect(other.stream).toBeUndefined();
  });

  it('2025: a request to the client goes on the stream; the same caller’s answer (a new POST) resumes the call', async () => {
    const { endpoint } = endpointWith(async (_p, ctx) => {
      const answer = await ctx.channel.request('elicitation/create', { message: 'Name?' });
      return {
        kind: 'complete',
        result: { content: [{ type: 'text', text: JSON.stringify(answer) }] },
      };
    });
    const response = await endpoint.handle(
      legacyMessage({ id: 'call-1', method: 'tools/call', params: { name: 'work' } }),
      { owner: 'a' },
    );
    const events = eventsOf(response);
    const request = await events.next();
    expect(request).toMatchObject({
      jsonrpc: '2.0',
      method: 'elicitation/create',
      params: { message: 'Name?' },
    });
    expect(request!.id).toMatch(/^srv-[0-9a-f-]{36}$/);

    const answer = { id: request!.id, result: { action: 'accept', content: { name: 'Ana' } } };
    const intruder = await endpoint.handle(legacyMessage(answer), { owner: 'b' });
    expect(intruder.status).toBe(400);
    const accepted = await endpoint.handle(legacyMessage(answer), { owner: 'a' });
    expect(accepted).toEqual({ status: 202, headers: {} });
    expect(await events.next()).toMatchObject({
      id: 'call-1',
      result: { content: [{ text: '{"action":"accept","content":{"name":"Ana"}}' }] },
    });
    expect(await events.next()).toBeUndefined();
    const replay = await endpoint.handle(legacyMessage(answer), { owner: 'a' });
    expect(replay.status).toBe(400);
  });

  it('2025: the client’s JSON-RPC error, a closed stream and a timeout each fail the waiting request', async () => {
    const failures: string[] = [];
    const { endpoint } = endpointWith(async (_p, ctx) => {
      try {
        await ctx.channel.request('sampling/createMessage', {});
      } catch (error) {
        failures.push(error instanceof ClientRequestFailed ? error.message : 'other');
      }
      return DONE;
    }, 50);
    const call = (id: number) =>
      legacyMessage({ id, method: 'tools/call', params: { name: 'work' } });

    const first = eventsOf(await endpoint.handle(call(1), { owner: 'a' }));
    const request = await first.next();
    await endpoint.handle(
      legacyMessage({ id: request!.id, error: { code: -1, message: 'User rejected sampling' } }),
      { owner: 'a' },
    );
    await first.rest();

    const second = await endpoint.handle(call(2), { owner: 'a' });
    const secondEvents = eventsOf(second);
    await secondEvents.next();
    second.stream!.close();
    await secondEvents.rest();

    await eventsOf(await endpoint.handle(call(3), { owner: 'a' })).rest();
    expect(failures).toEqual([
      'The client answered with error -1: User rejected sampling',
      'The client closed the response stream',
      'The client did not answer within 50 ms',
    ]);
  });

  it('2025 without a stream, and 2026-07-28 always: requests to the client fail at once', async () => {
    const failures: string[] = [];
    const { endpoint } = endpointWith(async (_p, ctx) => {
      await ctx.channel
        .request('roots/list', {})
        .catch((error: Error) => failures.push(error.message));
      return DONE;
    });
    const legacyJson = await endpoint.handle(
      legacyMessage(
        { id: 1, method: 'tools/call', params: { name: 'work' } },
        { accept: 'application/json' },
      ),
      { owner: 'a' },
    );
    expect(legacyJson.stream).toBeUndefined();
    await endpoint.handle(modernCall(), { owner: 'a' });
    expect(failures).toEqual([
      'roots/list needs a response stream, and the client did not accept text/event-stream',
      '2026-07-28 has no server-to-client requests; answer input_required with roots/list instead',
    ]);
  });

  it('2025: the same caller’s notifications/cancelled stops the running call; another caller’s does not', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const aborted: string[] = [];
    const { endpoint } = endpointWith(async (_p, ctx) => {
      started();
      await new Promise<void>((resolve) => {
        ctx.channel.signal.addEventListener('abort', () => resolve());
      });
      aborted.push(String(ctx.jsonRpcId));
      return DONE;
    });
    const call = endpoint.handle(
      legacyMessage({ id: 'call-9', method: 'tools/call', params: { name: 'work' } }),
      { owner: 'a' },
    );
    await running;
    const cancel = (owner: string) =>
      endpoint.handle(
        legacyMessage({ method: 'notifications/cancelled', params: { requestId: 'call-9' } }),
        { owner },
      );
    expect(await cancel('b')).toEqual({ status: 202, headers: {} });
    expect(aborted).toEqual([]);
    expect(await cancel('a')).toEqual({ status: 202, headers: {} });
    await call;
    expect(aborted).toEqual(['call-9']);
  });

  it('closing the stream aborts the handler’s signal (2026-07-28: that is cancellation)', async () => {
    let aborted: Promise<void> | undefined;
    const { endpoint } = endpointWith(async (_p, ctx) => {
      ctx.channel.progress(1);
      aborted = new Promise((resolve) =>
        ctx.channel.signal.addEventListener('abort', () => resolve()),
      );
      await aborted;
      ctx.channel.progress(2);
      return DONE;
    });
    const response = await endpoint.handle(modernCall({ progressToken: 'x' }), { owner: 'a' });
    const events = eventsOf(response);
    expect(await events.next()).toMatchObject({ params: { progress: 1 } });
    response.stream!.close();
    await aborted;
    expect(await events.rest()).toEqual([]);
  });
});
