import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../support/mcp-peers.js';
import { startBuiltServers, type BuiltServer, type LogLine } from '../support/built-server.js';
import { answer, askedOf } from '../support/mcp-confirmation-fixtures.js';
import { REDIS_SERVER_MISSING, TestRedis } from '../support/redis-server.js';
import { skipWhen } from '../support/skip.js';
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
  type RawResponse,
} from '../support/raw-mcp.js';

/**
 * Tracing against the BUILT server (requires `npm run build`), exporting over OTLP/HTTP to a real
 * receiver this test starts: the spans are what the SDK sent, decoded, nothing mocked. A
 * 2026-07-28 call carrying `_meta.traceparent` is a SERVER span in the agent's trace, named and
 * attributed as the MCP semantic conventions say, with the authorization, dispatch, SQL and
 * history write beneath it; a tool error says `error.type=tool_error`; a 2025 call over a session
 * and a REST call are traced; the log line, the history row and the audit event carry the call's
 * trace id; and no span ever carries a token, a cookie, an argument value or an e-mail address.
 * The confirmation ledger's ask and redeem are children of the call; Redis commands (rate limits,
 * when the server has Redis) are spans with the command name only; the access log line carries
 * the request's trace id; `/metrics` in OpenMetrics names the call's trace as an exemplar; and a
 * server that opted in (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`) records the
 * arguments and the result on the `tools/call` span.
 */

const RUN = randomBytes(4).toString('hex');
const CLIENT = 'trace-e2e';
const SERVER = 2;
const INTERNAL = 1;
const CLIENT_KIND = 3;
const ERROR = 2;
const EMAIL = /[^\s@"]+@[^\s@"]+\.[a-z]{2,}/i;
const COOKIE_SECRET = `cookie-${randomHex(12)}`;

let receiver: OtlpReceiver;
let s: BuiltServer;
/** A server that opted in to arguments and results on its spans. */
let opted: BuiltServer;

/**
 * The server's Redis: the one REDIS_URL names (CI's), else a redis-server of the test's own, else
 * none (the Redis spans' test is then skipped, saying why).
 */
const SHARED_REDIS_URL = process.env.REDIS_URL === '' ? undefined : process.env.REDIS_URL;
const REDIS_MISSING =
  SHARED_REDIS_URL === undefined &&
  REDIS_SERVER_MISSING !== false &&
  'no Redis: set REDIS_URL (e.g. redis://127.0.0.1:6379) or install redis-server to check the Redis command spans';
let ownRedis: TestRedis | undefined;

function traceparent(traceId: string, parentId: string): string {
  return `00-${traceId}-${parentId}-01`;
}

/** A 2026-07-28 `tools/call` in a new trace of the agent's (`_meta.traceparent`). */
async function tracedToolCall(
  tool: string,
  args: Record<string, unknown>,
  tag: string,
  options: { server?: BuiltServer; params?: Record<string, unknown> } = {},
): Promise<{ traceId: string; res: RawResponse }> {
  const server = options.server ?? s;
  const traceId = randomHex(16);
  const res = await modernToolCall(server.url, server.tokens.owner, CLIENT, tool, args, {
    requestId: `trace-${RUN}-${tag}`,
    params: options.params,
    meta: { traceparent: traceparent(traceId, randomHex(8)) },
  });
  return { traceId, res };
}

/** A REST request of the owner's in a new trace of the client's (`traceparent` header). */
async function tracedFetch(
  path: string,
  init: { method?: string; body?: Json } = {},
): Promise<{ traceId: string; res: Response }> {
  const traceId = randomHex(16);
  const res = await fetch(`${s.url}${path}`, {
    method: init.method,
    headers: {
      authorization: `Bearer ${s.tokens.owner}`,
      traceparent: traceparent(traceId, randomHex(8)),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { traceId, res };
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

/** The first log line of `server` that `match`es, waiting up to 5 s for it to be written. */
async function logLine(
  server: BuiltServer,
  match: (line: LogLine) => boolean,
): Promise<LogLine | undefined> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const line = server.logLines().find(match);
    if (line !== undefined || Date.now() > deadline) return line;
    await delay(50);
  }
}

/** A ledger step's span, checked to be a child of the call's `mcp.confirmation` span. */
function ledgerStep(spans: ReceivedSpan[], call: string, name: string): ReceivedSpan {
  const confirmation = descendants(spans, mcpSpan(spans, call)).find(
    (x) => x.name === 'mcp.confirmation',
  );
  if (confirmation === undefined) throw new Error(`no mcp.confirmation span under ${call}`);
  const step = spans.find((x) => x.name === name);
  if (step === undefined) throw new Error(`no ${name} span`);
  expect(step.parentSpanId).toBe(confirmation.spanId);
  expect(step.kind).toBe(INTERNAL);
  return step;
}

function mcpSpan(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const span = spans.find((x) => x.kind === SERVER && x.name === name);
  if (span === undefined) throw new Error(`no server span ${name}`);
  return span;
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  if (SHARED_REDIS_URL === undefined && REDIS_SERVER_MISSING === false)
    ownRedis = await TestRedis.start();
  const redisUrl = SHARED_REDIS_URL ?? ownRedis?.url;
  // The server under test and, beside it, one that opted in to content on spans (started
  // together: each start mostly waits).
  [s, opted] = await startBuiltServers([
    {
      env: {
        // Rate limits in Redis, under keys of this run's own on a shared Redis.
        ...(redisUrl === undefined
          ? {}
          : { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `trace-e2e-${RUN}` }),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'parentbased_always_on',
        OTEL_BSP_SCHEDULE_DELAY: '50',
        OTEL_SERVICE_NAME: 'platform-mcp-e2e',
        TRACE_URL_TEMPLATE: 'http://traces.example/trace/{traceId}?from=console',
      },
    },
    {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'parentbased_always_on',
        OTEL_BSP_SCHEDULE_DELAY: '50',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      },
    },
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.all([s?.dispose(), opted?.dispose()]);
  await ownRedis?.stop();
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
    for (const x of below) expect(x.kind === INTERNAL || x.kind === CLIENT_KIND).toBe(true);
    // A statement's span is the whole story of its connection: no span per pool checkout.
    expect(names.filter((n) => /^pg(-pool)?\.connect$/.test(n))).toEqual([]);
    expect(JSON.stringify(spans)).not.toContain(marker);
  });
});

describe('a tool error', () => {
  it('is error.type=tool_error on the server span', async () => {
    const { traceId, res } = await tracedToolCall(
      'get_account',
      { id: '00000000-0000-4000-8000-000000000000' },
      'error',
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
    const { traceId, res: created } = await tracedFetch('/v1/accounts', {
      method: 'POST',
      body: { name: `Traced REST ${RUN}` },
    });
    expect(created.status).toBe(201);
    const account: Json = await created.json();
    const id: string = account.id;
    const { traceId: readTrace } = await tracedFetch(`/v1/accounts/${id}`);
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
    const { traceId, res } = await tracedToolCall(
      'create_account',
      { name: `Traced ${RUN}` },
      'write',
    );
    expect(res.body.result.isError).toBeUndefined();
    // The server's own id for the request (a client's X-Request-Id is only a correlation id).
    const requestId = res.headers.get('x-request-id');
    const accountId: string = resultJson(res.body).id;
    // The log line is written as the call finishes, by then its span has been exported.
    const spans = await serverSpanOf(traceId, 'tools/call create_account');

    const line = await logLine(s, (l) => l.msg === 'tools/call' && l.requestId === requestId);
    expect(line?.trace_id).toBe(traceId);
    // The access line is the HTTP request's: with `_meta.traceparent`, the trace the MCP span links to.
    const [link] = mcpSpan(spans, 'tools/call create_account').links;
    // Written when the response finished, before the HTTP span (which ends then) is exported.
    await receiver.waitFor(
      (all) => all.some((x) => x.spanId === link?.spanId),
      'the HTTP span the MCP span links to',
    );
    const access = await logLine(
      s,
      (l) => l.msg === 'request completed' && l.req?.id === requestId,
    );
    expect(access?.trace_id).toBe(link?.traceId);

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

describe('a call the sampler dropped (the agent’s traceparent says not sampled)', () => {
  it('exports no span of it, yet its log line, history row and audit event carry its trace id', async () => {
    const traceId = randomHex(16);
    const res = await modernToolCall(
      s.url,
      s.tokens.owner,
      CLIENT,
      'create_account',
      { name: `Unsampled ${RUN}` },
      {
        requestId: `trace-${RUN}-unsampled`,
        meta: { traceparent: `00-${traceId}-${randomHex(8)}-00` },
      },
    );
    expect(res.body.result.isError).toBeUndefined();
    const requestId = res.headers.get('x-request-id');
    const accountId: string = resultJson(res.body).id;
    // A sampled call after it: once its span is in, every batch before it has been exported.
    const later = await tracedToolCall('list_accounts', {}, 'after-unsampled');
    await serverSpanOf(later.traceId, 'tools/call list_accounts');
    expect(spansOf(receiver.spans(), traceId)).toEqual([]);

    const line = await logLine(s, (l) => l.msg === 'tools/call' && l.requestId === requestId);
    expect(line?.trace_id).toBe(traceId);
    const auth = { authorization: `Bearer ${s.tokens.owner}` };
    const history: Json = await (
      await fetch(`${s.url}/v1/mcp/tool-calls?tool=create_account&limit=100`, { headers: auth })
    ).json();
    const rows: Json[] = history.data;
    expect(rows.find((r) => r.request_id === requestId)?.trace_id).toBe(traceId);
    const audit: Json = await (
      await fetch(`${s.url}/v1/audit-events?resource_id=${accountId}`, { headers: auth })
    ).json();
    const events: Json[] = audit.data;
    expect(events.map((e) => e.trace_id)).toEqual([traceId]);
  });

  it('a REST request likewise: no span exported, its access log line carries its trace id', async () => {
    const traceId = randomHex(16);
    const res = await fetch(`${s.url}/v1/accounts?limit=5`, {
      headers: {
        authorization: `Bearer ${s.tokens.owner}`,
        traceparent: `00-${traceId}-${randomHex(8)}-00`,
      },
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    const later = await tracedToolCall('list_accounts', {}, 'after-unsampled-rest');
    await serverSpanOf(later.traceId, 'tools/call list_accounts');
    expect(spansOf(receiver.spans(), traceId)).toEqual([]);
    const access = await logLine(
      s,
      (l) => l.msg === 'request completed' && l.req?.id === requestId,
    );
    expect(access?.trace_id).toBe(traceId);
  });
});

describe('a destructive tool’s confirmation', () => {
  it('the ledger’s ask and redeem are children of the confirmation step, with their SQL', async () => {
    const auth = { authorization: `Bearer ${s.tokens.owner}`, 'content-type': 'application/json' };
    const created = await fetch(`${s.url}/v1/accounts`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: `Confirmed ${RUN}` }),
    });
    expect(created.status).toBe(201);
    const account: Json = await created.json();
    const id: string = account.id;

    const { traceId: askTrace, res: asked } = await tracedToolCall('delete_account', { id }, 'ask');
    const { key, requestState } = askedOf(asked);
    const askSpans = await serverSpanOf(askTrace, 'tools/call delete_account');
    const ask = ledgerStep(askSpans, 'tools/call delete_account', 'mcp.confirmation.ask');
    expect(descendants(askSpans, ask).some((x) => sqlText(x)?.includes('mcp_confirmations'))).toBe(
      true,
    );

    const { traceId: redeemTrace, res: redeemed } = await tracedToolCall(
      'delete_account',
      { id },
      'redeem',
      { params: { requestState, inputResponses: answer(key, 'accept') } },
    );
    expect(redeemed.body.result.isError).toBeUndefined();
    const redeemSpans = await serverSpanOf(redeemTrace, 'tools/call delete_account');
    const redeem = ledgerStep(redeemSpans, 'tools/call delete_account', 'mcp.confirmation.redeem');
    expect(redeem.attributes).toMatchObject({
      'mcp.confirmation.answer': 'accept',
      'mcp.confirmation.outcome': 'consumed',
    });
    expect(
      descendants(redeemSpans, redeem).some((x) => sqlText(x)?.includes('mcp_confirmations')),
    ).toBe(true);
    // The delete ran after the redemption, in the same trace.
    const names = descendants(redeemSpans, mcpSpan(redeemSpans, 'tools/call delete_account')).map(
      (x) => x.name,
    );
    expect(names).toContain('mcp.dispatch DELETE /v1/accounts/:id');
    expect(names).not.toContain('mcp.confirmation.ask');
  });
});

describe('Redis commands', skipWhen(REDIS_MISSING), () => {
  it('are CLIENT spans of the request that made them, named by the command, without keys or values', async () => {
    const { traceId, res } = await tracedFetch('/v1/me');
    expect(res.status).toBe(200);
    const spans = await receiver.waitFor(
      (all) =>
        spansOf(all, traceId).some((x) => x.kind === SERVER) &&
        spansOf(all, traceId).some((x) => x.attributes['db.system.name'] === 'redis'),
      'the rate limit’s Redis commands in the REST request’s trace',
    );
    const http = spansOf(spans, traceId).find((x) => x.kind === SERVER)!;
    const redis = spansOf(spans, traceId).filter((x) => x.attributes['db.system.name'] === 'redis');
    expect(redis.length).toBeGreaterThan(0);
    for (const span of redis) {
      expect(span.kind).toBe(CLIENT_KIND);
      expect(descendants(spans, http).map((x) => x.spanId)).toContain(span.spanId);
      // The command's name only (dbStatementSerializer): its keys name the token and the address.
      expect(span.attributes['db.query.text']).toMatch(/^[a-z]+$/);
      expect(JSON.stringify(span.attributes)).not.toContain(`trace-e2e-${RUN}`);
    }
  });
});

describe('the access log line', () => {
  it('of a traced request carries its trace id', async () => {
    const { traceId, res } = await tracedFetch('/v1/me');
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    await receiver.waitFor(
      (all) => spansOf(all, traceId).some((x) => x.kind === SERVER),
      'the request’s span',
    );
    const line = await logLine(s, (l) => l.msg === 'request completed' && l.req?.id === requestId);
    expect(line, `the access line of ${requestId}`).toBeDefined();
    expect(line?.trace_id).toBe(traceId);
    expect(line?.span_id).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('/metrics', () => {
  it('in OpenMetrics, when asked, names a call’s trace as the exemplar of its duration bucket; Prometheus text by default', async () => {
    const { traceId, res } = await tracedToolCall('list_portal_users', { limit: 1 }, 'exemplar');
    expect(res.status).toBe(200);
    const open = await fetch(`${s.url}/metrics`, {
      headers: {
        accept:
          'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
      },
    });
    expect(open.headers.get('content-type')).toBe(
      'application/openmetrics-text; version=1.0.0; charset=utf-8',
    );
    const body = await open.text();
    expect(body.endsWith('# EOF\n')).toBe(true);
    const bucket = body
      .split('\n')
      .find(
        (l) =>
          l.startsWith('mcp_server_operation_duration_seconds_bucket{') &&
          l.includes('gen_ai_tool_name="list_portal_users"') &&
          l.includes(`# {trace_id="${traceId}"}`),
      );
    expect(bucket, 'a bucket with the call’s trace id as its exemplar').toBeDefined();
    // Counters keep their names: the family without `_total`, its sample with it.
    expect(body).toContain('# TYPE mcp_requests counter');
    expect(body).toMatch(/^mcp_requests_total\{/m);

    const text = await fetch(`${s.url}/metrics`);
    expect(text.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const plain = await text.text();
    expect(plain).toContain('# TYPE mcp_requests_total counter');
    expect(plain).not.toContain('trace_id=');
    expect(plain).not.toContain('# EOF');
  });
});

describe('arguments and results on spans', () => {
  it('appear only on a server that opted in (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)', async () => {
    const marker = `content-${RUN}`;
    const call = async (server: BuiltServer): Promise<ReceivedSpan> => {
      const { traceId, res } = await tracedToolCall(
        'list_accounts',
        { q: marker, limit: 1 },
        'content',
        { server },
      );
      expect(res.status).toBe(200);
      return mcpSpan(
        await serverSpanOf(traceId, 'tools/call list_accounts'),
        'tools/call list_accounts',
      );
    };
    const off = await call(s);
    expect(off.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(off.attributes['gen_ai.tool.call.result']).toBeUndefined();

    const on = await call(opted);
    expect(JSON.parse(String(on.attributes['gen_ai.tool.call.arguments']))).toEqual({
      q: marker,
      limit: 1,
    });
    const result: Json = JSON.parse(String(on.attributes['gen_ai.tool.call.result']));
    expect(result.structuredContent).toMatchObject({ data: [] });
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
