import { randomBytes } from 'node:crypto';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../support/mcp-peers.js';
import { startBuiltServer, type BuiltServer } from '../support/built-server.js';
import {
  randomHex,
  startOtlpReceiver,
  type AttributeValue,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../support/otlp-receiver.js';
import {
  legacyInitialize,
  legacyToolCall,
  modernToolCall,
  post,
  resultJson,
} from '../support/raw-mcp.js';

/**
 * Tracing against the BUILT server (requires `npm run build`), exporting over OTLP/HTTP to a real
 * receiver this test starts: the spans are what the SDK sent, decoded, nothing mocked. A
 * 2026-07-28 call carrying `_meta.traceparent` is a SERVER span in the agent's trace, named and
 * attributed as the MCP semantic conventions say, with the authorization, dispatch, SQL and
 * history write beneath it; a tool error says `error.type=tool_error`; a 2025 call over a session
 * and a REST call are traced; the log line, the history row and the audit event carry the call's
 * trace id; and no span ever carries a token, a cookie, an argument value or an e-mail address.
 */

const RUN = randomBytes(4).toString('hex');
const CLIENT = 'trace-e2e';
const SERVER = 2;
const INTERNAL = 1;
const ERROR = 2;
const EMAIL = /[^\s@"]+@[^\s@"]+\.[a-z]{2,}/i;
const COOKIE_SECRET = `cookie-${randomHex(12)}`;

let receiver: OtlpReceiver;
let s: BuiltServer;

function traceparent(traceId: string, parentId: string): string {
  return `00-${traceId}-${parentId}-01`;
}

function spansOf(spans: ReceivedSpan[], traceId: string): ReceivedSpan[] {
  return spans.filter((span) => span.traceId === traceId);
}

/** Every span under `root` (children, their children, …). */
function descendants(spans: ReceivedSpan[], root: ReceivedSpan): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  const walk = (id: string): void => {
    for (const span of spans) {
      if (span.parentSpanId !== id) continue;
      out.push(span);
      walk(span.spanId);
    }
  };
  walk(root.spanId);
  return out;
}

/** Waits for the finished server span of a trace, then for its subtree to settle. */
async function serverSpanOf(traceId: string, name: string): Promise<ReceivedSpan[]> {
  await receiver.waitFor(
    (spans) => spansOf(spans, traceId).some((x) => x.kind === SERVER && x.name === name),
    `the server span "${name}" of trace ${traceId}`,
  );
  // The children end before their parent; the batch that carried the parent carried them.
  return spansOf(receiver.spans(), traceId);
}

function mcpSpan(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const span = spans.find((x) => x.kind === SERVER && x.name === name);
  if (span === undefined) throw new Error(`no server span ${name}`);
  return span;
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  s = await startBuiltServer({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_SERVICE_NAME: 'platform-mcp-e2e',
      TRACE_URL_TEMPLATE: 'http://traces.example/trace/{traceId}?from=console',
    },
  });
}, 180_000);

afterAll(async () => {
  await s?.dispose();
  await receiver?.close();
});

describe('an MCP tools/call carrying _meta.traceparent', () => {
  const traceId = randomHex(16);
  const agentSpan = randomHex(8);
  const marker = `needle-${RUN}`;
  let spans: ReceivedSpan[] = [];

  beforeAll(async () => {
    const res = await modernToolCall(
      s.url,
      s.tokens.owner,
      CLIENT,
      'list_accounts',
      { q: marker },
      { requestId: `trace-${RUN}-read`, meta: { traceparent: traceparent(traceId, agentSpan) } },
    );
    if (res.status !== 200) throw new Error(`tools/call answered ${res.status}`);
    spans = await serverSpanOf(traceId, 'tools/call list_accounts');
  });

  it('is a SERVER span in the agent’s trace, named and attributed as the MCP conventions say', () => {
    const span = mcpSpan(spans, 'tools/call list_accounts');
    expect(span.parentSpanId).toBe(agentSpan);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'list_accounts',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'jsonrpc.request.id': '1',
    });
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.statusCode).not.toBe(ERROR);
    expect(span.resource['service.name']).toBe('platform-mcp-e2e');
    expect(span.resource['service.version']).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('links to the HTTP request’s span, which is a trace of its own', () => {
    const span = mcpSpan(spans, 'tools/call list_accounts');
    expect(span.links).toHaveLength(1);
    const [link] = span.links;
    expect(link?.traceId).not.toBe(traceId);
    const http = receiver.spans().find((x) => x.spanId === link?.spanId);
    expect(http).toMatchObject({ kind: SERVER, name: 'POST /mcp' });
  });

  it('has children for the authorization, the dispatch, each SQL statement and the history write', () => {
    const span = mcpSpan(spans, 'tools/call list_accounts');
    const below = descendants(spans, span);
    const names = below.map((x) => x.name);
    expect(names).toContain('mcp.authorize');
    expect(names).toContain('mcp.dispatch GET /v1/accounts');
    expect(names).toContain('mcp.history.write');
    const dispatch = below.find((x) => x.name === 'mcp.dispatch GET /v1/accounts');
    const sql = below.filter((x) => sqlText(x) !== undefined);
    expect(sql.length).toBeGreaterThan(0);
    // The accounts query runs inside the dispatch, its statement text without its parameters.
    const accounts = sql.filter((x) => sqlText(x)?.includes('FROM accounts'));
    expect(accounts.length).toBeGreaterThan(0);
    expect(descendants(spans, dispatch!).map((x) => x.spanId)).toEqual(
      expect.arrayContaining(accounts.map((x) => x.spanId)),
    );
    for (const x of below) expect(x.kind === INTERNAL || x.kind === 3).toBe(true);
    expect(JSON.stringify(spans)).not.toContain(marker);
  });
});

describe('a tool error', () => {
  it('is error.type=tool_error on the server span', async () => {
    const traceId = randomHex(16);
    const res = await modernToolCall(
      s.url,
      s.tokens.owner,
      CLIENT,
      'get_account',
      { id: '00000000-0000-4000-8000-000000000000' },
      {
        requestId: `trace-${RUN}-error`,
        meta: { traceparent: traceparent(traceId, randomHex(8)) },
      },
    );
    expect(res.body.result.isError).toBe(true);
    const span = mcpSpan(
      await serverSpanOf(traceId, 'tools/call get_account'),
      'tools/call get_account',
    );
    expect(span.attributes['error.type']).toBe('tool_error');
    expect(span.statusCode).toBe(ERROR);
  });
});

describe('a 2025 call over a session', () => {
  it('is a server span under the HTTP request’s trace, with the session and the revision', async () => {
    const init = await legacyInitialize(s.url, s.tokens.member, CLIENT);
    const session = init.headers.get('mcp-session-id');
    expect(session).toBeTruthy();
    const traceId = randomHex(16);
    const callerSpan = randomHex(8);
    const res = await legacyToolCall(
      s.url,
      s.tokens.member,
      'get_current_context',
      {},
      {
        requestId: `trace-${RUN}-legacy`,
        headers: { 'mcp-session-id': session!, traceparent: traceparent(traceId, callerSpan) },
      },
    );
    expect(res.status).toBe(200);
    const spans = await serverSpanOf(traceId, 'tools/call get_current_context');
    const span = mcpSpan(spans, 'tools/call get_current_context');
    const http = spans.find((x) => x.spanId === span.parentSpanId);
    expect(http).toMatchObject({ kind: SERVER, name: 'POST /mcp', parentSpanId: callerSpan });
    expect(span.links).toEqual([]);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': '2025-06-18',
      'mcp.session.id': session,
    });
  });
});

describe('a REST request', () => {
  it('is an HTTP server span named after its route template', async () => {
    const traceId = randomHex(16);
    const created = await fetch(`${s.url}/v1/accounts`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${s.tokens.owner}`,
        'content-type': 'application/json',
        traceparent: traceparent(traceId, randomHex(8)),
      },
      body: JSON.stringify({ name: `Traced REST ${RUN}` }),
    });
    expect(created.status).toBe(201);
    const account: Json = await created.json();
    const id: string = account.id;
    const readTrace = randomHex(16);
    await fetch(`${s.url}/v1/accounts/${id}`, {
      headers: {
        authorization: `Bearer ${s.tokens.owner}`,
        traceparent: traceparent(readTrace, randomHex(8)),
      },
    });
    const spans = await receiver.waitFor(
      (all) => spansOf(all, readTrace).some((x) => x.kind === SERVER),
      'the REST read',
    );
    const read = spansOf(spans, readTrace).find((x) => x.kind === SERVER);
    expect(read?.name).toBe('GET /v1/accounts/:id');
    expect(read?.attributes['http.route']).toBe('/v1/accounts/:id');
    expect(spansOf(spans, readTrace).some((x) => sqlText(x) !== undefined)).toBe(true);
    expect(spansOf(spans, traceId).find((x) => x.kind === SERVER)?.name).toBe('POST /v1/accounts');
  });
});

describe('one trace id everywhere', () => {
  it('the log line, the history row (linked to the trace viewer) and the audit event of a write carry the call’s trace id', async () => {
    const traceId = randomHex(16);
    const res = await modernToolCall(
      s.url,
      s.tokens.owner,
      CLIENT,
      'create_account',
      { name: `Traced ${RUN}` },
      {
        requestId: `trace-${RUN}-write`,
        meta: { traceparent: traceparent(traceId, randomHex(8)) },
      },
    );
    expect(res.body.result.isError).toBeUndefined();
    // The server's own id for the request (a client's X-Request-Id is only a correlation id).
    const requestId = res.headers.get('x-request-id');
    const accountId: string = resultJson(res.body).id;
    await serverSpanOf(traceId, 'tools/call create_account');

    const line = s.logLines().find((l) => l.msg === 'tools/call' && l.requestId === requestId);
    expect(line?.trace_id).toBe(traceId);

    const auth = { authorization: `Bearer ${s.tokens.owner}` };
    const history: Json = await (
      await fetch(`${s.url}/v1/mcp/tool-calls?tool=create_account&limit=100`, { headers: auth })
    ).json();
    const rows: Json[] = history.data;
    const row = rows.find((r) => r.request_id === requestId);
    expect(row?.trace_id).toBe(traceId);
    // The console's call detail links it to the trace viewer.
    const detail: Json = await (
      await fetch(`${s.url}/v1/mcp/tool-calls/${row?.id}`, { headers: auth })
    ).json();
    expect(detail.trace_url).toBe(`http://traces.example/trace/${traceId}?from=console`);

    const audit: Json = await (
      await fetch(`${s.url}/v1/audit-events?resource_id=${accountId}`, { headers: auth })
    ).json();
    const events: Json[] = audit.data;
    expect(events.map((e) => e.trace_id)).toEqual([traceId]);
  });
});

describe('span attributes', () => {
  it('never carry a token, a cookie, an argument value or an e-mail address, for any tool and input', async () => {
    const listed = await post(
      s.url,
      s.tokens.owner,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    const tools: { name: string }[] = listed.body.result.tools;
    const secrets = new Set<string>([...Object.values(s.tokens), COOKIE_SECRET]);
    const traces: string[] = [];
    const value = fc.oneof(
      hex(12).map((h) => `val-${h}`),
      hex(8).map((h) => `person.${h}@example.com`),
      fc.constantFrom(...Object.values(s.tokens)),
      fc.uuid(),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom(...tools.map((t) => t.name)),
          value, // an unknown tool named by input
        ),
        fc.dictionary(fc.constantFrom('id', 'q', 'name', 'email', 'external_id', 'x'), value),
        fc.constantFrom('modern', 'legacy'),
        async (tool, args, era) => {
          for (const leaf of Object.values(args)) secrets.add(leaf);
          if (!tools.some((t) => t.name === tool)) secrets.add(tool);
          const traceId = randomHex(16);
          traces.push(traceId);
          const headers = {
            cookie: `session=${COOKIE_SECRET}`,
            traceparent: traceparent(traceId, randomHex(8)),
          };
          const options = { requestId: `prop-${randomHex(6)}`, headers };
          const res =
            era === 'modern'
              ? await modernToolCall(s.url, s.tokens.owner, CLIENT, tool, args, options)
              : await legacyToolCall(s.url, s.tokens.owner, tool, args, options);
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 40 },
    );
    const spans = await receiver.waitFor(
      (all) => traces.every((t) => all.some((x) => x.traceId === t && x.name === 'POST /mcp')),
      'every property run’s spans',
    );
    const leaks: string[] = [];
    for (const span of spans) {
      const texts = [span.name, ...Object.values(span.attributes).flatMap(texts0)];
      for (const text of texts) {
        for (const secret of secrets)
          if (text.includes(secret)) leaks.push(`${span.name}: ${text}`);
        if (EMAIL.test(text)) leaks.push(`${span.name}: ${text}`);
      }
    }
    expect(leaks).toEqual([]);
  });
});

/** Random lower-case hex of `length` digits. */
function hex(length: number): fc.Arbitrary<string> {
  return fc.string({
    unit: fc.constantFrom(...'0123456789abcdef'.split('')),
    minLength: length,
    maxLength: length,
  });
}

/** A SQL span's statement text (the stable attribute, or the older one). */
function sqlText(span: ReceivedSpan): string | undefined {
  const text = span.attributes['db.query.text'] ?? span.attributes['db.statement'];
  return typeof text === 'string' ? text : undefined;
}

function texts0(value: AttributeValue): string[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap(texts0);
  return [String(value)];
}
