import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { modernToolCall, parseMetrics, type RawResponse } from '../support/raw-mcp.js';
import { countRows, sql, type Json } from './platform-api.fixtures.js';

/**
 * One deadline per request bounds its database waits (REQUEST_DEADLINE_MS). With a TCP proxy of
 * the test's own between the server and its database (embedded or real Postgres), the database is
 * frozen (connections open, nothing answered) or cut (every connection dropped and refused), and:
 * - every route of the server's own route table, and every tool of tools/list, answers within the
 *   deadline + 1 s: 503 SERVICE_UNAVAILABLE + Retry-After (HTTP), an isError SERVICE_UNAVAILABLE
 *   result (tools; confirmation_unavailable for a destructive tool's first call), or, where the
 *   answer needs no database, its usual answer; never a 500 or a JSON-RPC error;
 * - the metrics count it as unavailability: no -32603, no `unknown`, no 5xx other than 503;
 * - no write is answered ok and missing, or failed and present;
 * - across a cut, no history row of a call answered ok is lost: the rows the database could not
 *   take are kept and written once it answers again.
 *
 * The cut lasts FAULT_CUT_MS (default 3 s, so the default run stays short; the 30 s is
 * `FAULT_CUT_MS=30000`).
 */

const DEADLINE_MS = 2_000;
/** The contract: a frozen or cut database is answered within the deadline plus one second. */
const BOUND_MS = DEADLINE_MS + 1_000;
const CUT_MS = Number(process.env.FAULT_CUT_MS ?? 3_000);

interface Answer {
  label: string;
  status: number;
  retryAfter: string | null;
  body: Json;
  ms: number;
}

function parse(text: string): Json {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The server's own route table (Fastify's), as `METHOD /path` with `:params`. */
function routeTable(printed: string): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = [];
  const stack: string[] = [];
  for (const line of printed.split('\n')) {
    const match = /^([│ ]*)[├└]── (.*?) \(([A-Z, ]+)\)$/u.exec(line);
    if (match === null) continue;
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    const path = `${stack.join('')}${match[2] ?? ''}`;
    stack.push(match[2] ?? '');
    for (const method of (match[3] ?? '').split(', ')) {
      if (method === 'HEAD') continue;
      routes.push({ method, path });
    }
  }
  return routes;
}

/** A value for each required argument of a tool, from its input schema. */
function argumentsFor(schema: Json, ids: Record<string, string>): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const required: string[] = schema.required ?? [];
  for (const name of required) {
    const p: Json = schema.properties?.[name] ?? {};
    const unique = randomUUID().slice(0, 8);
    if (name in ids) args[name] = ids[name];
    else if (p.enum !== undefined) args[name] = p.enum[0];
    else if (p.format === 'email') args[name] = `deadline-${unique}@acme.test`;
    else if (p.format === 'uuid') args[name] = randomUUID();
    else if (p.type === 'integer' || p.type === 'number') args[name] = p.minimum ?? 1;
    else if (p.type === 'boolean') args[name] = false;
    else args[name] = `Deadline ${unique}`;
  }
  return args;
}

/**
 * Runs `jobs` a few at a time, in order of the list: enough to have many requests waiting on the
 * database at once, few enough that a 2-core machine shared with other work answers each on time
 * (the bound is the server's, not the test machine's scheduler).
 */
async function inParallel<T>(jobs: (() => Promise<T>)[], width = 16): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++;
      const job = jobs[i];
      if (job !== undefined) results[i] = await job();
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return results;
}

/** The JSON-RPC answer of a response: the body itself, or the last message of an event stream. */
function finalMessage(body: Json): Json {
  if (typeof body !== 'string') return body;
  const messages = body
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => parse(line.slice('data:'.length).trim()));
  return messages.findLast((m: Json) => m?.result !== undefined || m?.error !== undefined) ?? body;
}

function toolError(body: Json): string | undefined {
  if (body?.result?.isError !== true) return undefined;
  return parse(body.result.content?.[0]?.text ?? '{}')?.error?.code;
}

const timed = async (
  label: string,
  run: () => Promise<{ status: number; headers: Headers; body: Json }>,
): Promise<Answer> => {
  const started = performance.now();
  const res = await run();
  return {
    label,
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: res.body,
    ms: performance.now() - started,
  };
};

/**
 * What a route may answer while the database is away: 503 SERVICE_UNAVAILABLE with Retry-After,
 * or (an answer that needs no database) its usual one below 500. `ok`, or what is wrong.
 */
function routeVerdict(a: Answer): string {
  if (a.status !== 503) return a.status < 500 ? 'ok' : `${a.status}: ${JSON.stringify(a.body)}`;
  if (a.body?.error?.code !== 'SERVICE_UNAVAILABLE') return `503 ${JSON.stringify(a.body)}`;
  return Number(a.retryAfter) > 0 ? 'ok' : '503 without Retry-After';
}

/**
 * What a tool may answer: an isError result with SERVICE_UNAVAILABLE and when to retry
 * (confirmation_unavailable for a destructive tool's first call), the transport's 503 when
 * authenticating needed the database (the replica's token cache is off while its change feed is
 * down, as in a cut), or a read that needs no database (who am I, from the cached token).
 */
function toolVerdict(a: Answer, destructive: boolean, readOnly: boolean): string {
  if (a.status === 503) return routeVerdict(a);
  if (a.status !== 200 || a.body?.error !== undefined) return JSON.stringify(a.body);
  const code = toolError(a.body);
  if (code === undefined) return readOnly ? 'ok' : 'a write answered ok with the database away';
  if (destructive) return code === 'confirmation_unavailable' ? 'ok' : code;
  if (code !== 'SERVICE_UNAVAILABLE') return code;
  const retry: unknown = parse(a.body.result.content[0].text).error.details?.retry_after_seconds;
  return typeof retry === 'number' && retry > 0 ? 'ok' : 'no retry_after_seconds';
}

/** Every answer within the bound, and each as its verdict says. */
function expectAnswers(answers: { answer: Answer; verdict: string }[]): void {
  const late = answers
    .filter(({ answer }) => answer.ms >= BOUND_MS)
    .map(({ answer }) => `${answer.label} took ${Math.round(answer.ms)} ms`);
  expect(late).toEqual([]);
  const wrong = answers
    .filter(({ verdict }) => verdict !== 'ok')
    .map(({ answer, verdict }) => `${answer.label}: ${verdict}`);
  expect(wrong).toEqual([]);
}

describe('one database deadline per request (TCP proxy, frozen and cut)', () => {
  let proxy: TcpProxy;
  let t: TestServer;
  let routes: { method: string; path: string }[];
  let tools: { name: string; inputSchema: Json; annotations?: Json }[];
  const ids: Record<string, string> = {};
  /** Routes that answer 503 with the database up (the admin console without a build). */
  const unbuilt = new Set<string>();

  beforeAll(async () => {
    t = await startTestServer(
      {
        requestDeadlineMs: DEADLINE_MS,
        // The owner's token stays resolved in this replica's cache, so calls reach the routes
        // and tools themselves; a token never seen needs the database to authenticate.
        principalCacheTtlMs: 60_000,
        dbPoolSize: process.env.DATABASE_URL ? 4 : 1,
      },
      {
        databaseUrl: async (url) => {
          const target = new URL(url);
          proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
          target.host = proxy.address;
          return target.toString();
        },
      },
    );
    routes = routeTable(
      t.server.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false }),
    );
    const listed = await t.request('/mcp', {
      token: 'owner',
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    tools = parse(await listed.text()).result.tools;
    for (const a of await inParallel(everyRoute())) if (a.status === 503) unbuilt.add(a.label);
    const account = await t.request('/v1/accounts', {
      token: 'owner',
      method: 'POST',
      json: { name: 'Deadline Ltd', external_id: `dl-${randomUUID()}` },
    });
    ids.id = parse(await account.text()).id;
    ids.account_id = ids.id;
  }, 120_000);

  afterAll(async () => {
    try {
      proxy?.set('pass');
      await t?.close();
    } finally {
      await proxy?.close();
    }
  });

  const http = (method: string, path: string, token = 'owner'): Promise<Answer> =>
    timed(`${method} ${path}`, async () => {
      const res = await t.request(path, {
        method,
        token,
        // One request per route: a redirect's target is a route of its own in the table.
        redirect: 'manual',
        ...(method === 'POST' || method === 'PATCH' ? { json: {} } : {}),
      });
      return { status: res.status, headers: res.headers, body: parse(await res.text()) };
    });

  const tool = (name: string, args: Record<string, unknown>, token?: string): Promise<Answer> =>
    timed(`tool ${name}`, async (): Promise<RawResponse> => {
      const secret = token ?? t.tokens.owner;
      const res = await modernToolCall(t.url, secret, 'deadline-test', name, args, {
        requestId: `deadline-${randomUUID()}`,
      });
      return { ...res, body: finalMessage(res.body) };
    });

  /** A concrete request for each route of the table (ids that exist where the table has `:id`). */
  const everyRoute = (token = 'owner'): (() => Promise<Answer>)[] =>
    routes
      .filter((r) => !(r.path === '/mcp' && r.method !== 'POST'))
      .map(
        (r) => () =>
          http(
            r.method,
            r.path
              .replace(':id', ids.id ?? randomUUID())
              .replace(/:[a-z_]+/g, () => randomUUID())
              .replace(/\*$/, 'index.html'),
            token,
          ),
      );

  const everyTool = (): (() => Promise<Answer>)[] =>
    tools.map((d) => () => tool(d.name, argumentsFor(d.inputSchema, ids)));

  async function healed(): Promise<void> {
    proxy.set('pass');
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      const res = await t.request('/health/ready');
      if (res.status === 200) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error('the server did not become ready again after the database came back');
  }

  async function toolCallMetrics(): Promise<Map<string, number>> {
    return parseMetrics(await (await t.request('/metrics')).text());
  }

  for (const mode of ['freeze', 'cut'] as const) {
    it(`${mode}: every route and every tool answers within the deadline + 1 s with the documented codes`, async () => {
      expect(routes.length).toBeGreaterThan(30);
      expect(tools.length).toBeGreaterThan(10);
      const externalIds = [`dl-rest-${randomUUID()}`, `dl-mcp-${randomUUID()}`];
      proxy.set(mode);
      const routeJobs = everyRoute();
      const toolJobs = everyTool();
      const strangerJobs = everyRoute('member');
      const writeJobs = [
        () =>
          timed('POST /v1/accounts (valid)', async () => {
            const res = await t.request('/v1/accounts', {
              token: 'owner',
              method: 'POST',
              json: { name: 'Never Ltd', external_id: externalIds[0] },
            });
            return { status: res.status, headers: res.headers, body: parse(await res.text()) };
          }),
        () => tool('create_account', { name: 'Never Ltd', external_id: externalIds[1] }),
      ];
      let all: Answer[];
      try {
        all = await inParallel([...writeJobs, ...toolJobs, ...routeJobs, ...strangerJobs]);
      } finally {
        await healed();
      }
      const writes = all.slice(0, writeJobs.length);
      const toolAnswers = all.slice(writeJobs.length, writeJobs.length + toolJobs.length);
      const strangers = all.slice(all.length - strangerJobs.length);
      expectAnswers([
        // A page that is not there without a build (the admin console) says so whatever the database.
        ...all
          .slice(writeJobs.length + toolJobs.length)
          .filter((answer) => !unbuilt.has(answer.label))
          .map((answer) => ({ answer, verdict: routeVerdict(answer) })),
        ...tools.map((d, i) => {
          const answer = toolAnswers[i];
          return {
            answer,
            verdict: toolVerdict(
              answer,
              d.annotations?.destructiveHint === true,
              d.annotations?.readOnlyHint === true,
            ),
          };
        }),
      ]);
      // Nothing that needs the database can have answered without it.
      const authenticated = strangers.filter((a) => a.status === 503);
      expect(authenticated.length).toBeGreaterThan(20);
      // The writes failed, and nothing of them is there.
      expect(writes[0]?.status).toBe(503);
      // The tool's own isError, or the transport's 503 when authenticating needed the database.
      expect(
        writes[1]?.status === 503 ? writes[1].body?.error?.code : toolError(writes[1]?.body),
      ).toBe('SERVICE_UNAVAILABLE');
      expect(await countRows(t, 'accounts', 'external_id = ANY($1::text[])', [externalIds])).toBe(
        0,
      );

      const metrics = await toolCallMetrics();
      const sum = (name: string, match: (key: string) => boolean): number =>
        [...metrics.entries()]
          .filter(([key]) => key.startsWith(`${name}{`) && match(key))
          .reduce((total, [, value]) => total + value, 0);
      // Each tool answered SERVICE_UNAVAILABLE counts as such (the counter is cumulative).
      const unavailable = toolAnswers.filter((a) => toolError(a.body) === 'SERVICE_UNAVAILABLE');
      expect(
        sum('mcp_tool_calls_total', (k) => k.includes('status="SERVICE_UNAVAILABLE"')),
      ).toBeGreaterThanOrEqual(unavailable.length);
      expect(sum('mcp_tool_calls_total', (k) => k.includes('status="unknown"'))).toBe(0);
      expect(sum('mcp_tool_calls_total', (k) => k.includes('status="-32603"'))).toBe(0);
      expect(sum('mcp_requests_total', (k) => k.includes('outcome="internal_error"'))).toBe(0);
      expect(
        sum('http_requests_total', (k) => /status="5/.test(k) && !k.includes('status="503"')),
      ).toBe(0);
    }, 120_000);
  }

  it(`cut for ${CUT_MS} ms: no history row of a call answered ok is lost, and every write is all or none`, async () => {
    const organizationId = parse(await (await t.request('/v1/me', { token: 'owner' })).text())
      .organization.id;
    const okRows = (): Promise<number> =>
      countRows(t, 'mcp_tool_calls', `organization_id = $1 AND status = 'ok'`, [organizationId]);
    const before = await okRows();

    const reads: Promise<Answer>[] = [];
    const writes: { externalId: string; answer: Promise<Answer> }[] = [];
    const fire = (n: number): void => {
      for (let i = 0; i < n; i++) reads.push(tool('list_accounts', { limit: 1 }));
      const externalId = `dl-cut-${randomUUID()}`;
      writes.push({
        externalId,
        answer: tool('create_account', { name: 'Cut Ltd', external_id: externalId }),
      });
    };
    // Calls in flight and rows still batched when the database goes away, more during the cut,
    // and more once it is back.
    fire(30);
    await new Promise((resolve) => setTimeout(resolve, 30));
    proxy.set('cut');
    const cutEnds = Date.now() + CUT_MS;
    while (Date.now() < cutEnds) {
      fire(3);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await healed();
    fire(5);

    const readAnswers = await Promise.all(reads);
    const okReads = readAnswers.filter((a) => a.status === 200 && toolError(a.body) === undefined);
    expect(okReads.length).toBeGreaterThan(0);
    // Each write is all or none: answered ok ⇒ the account, its audit event and its history row;
    // failed ⇒ none of them.
    const verdicts: string[] = [];
    let okWrites = 0;
    for (const w of writes) {
      const answer = await w.answer;
      const ok = answer.status === 200 && toolError(answer.body) === undefined;
      if (ok) okWrites++;
      const [stored] = await sql<{ events: number; rows: number }>(
        t,
        `SELECT (SELECT count(*)::int FROM audit_events e WHERE e.resource_id = a.id
                   AND e.action = 'account.created') AS events,
                (SELECT count(*)::int FROM mcp_tool_calls c
                  WHERE c.request_id IN (SELECT request_id FROM audit_events e
                                          WHERE e.resource_id = a.id)
                    AND c.tool = 'create_account' AND c.status = 'ok') AS rows
           FROM accounts a WHERE a.external_id = $1`,
        [w.externalId],
      );
      const present =
        stored === undefined
          ? 'absent'
          : `account, ${stored.events} event(s), ${stored.rows} row(s)`;
      verdicts.push(`${ok ? 'ok' : 'failed'}: ${present}`);
    }
    expect(
      verdicts.filter((v) => v !== 'ok: account, 1 event(s), 1 row(s)' && v !== 'failed: absent'),
    ).toEqual([]);
    expect(okWrites).toBeGreaterThan(0);

    // The rows the database could not take during the cut are written once it answers again.
    const expected = before + okReads.length + okWrites;
    const until = Date.now() + 30_000;
    let rows = await okRows();
    while (rows < expected && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      rows = await okRows();
    }
    expect(rows).toBe(expected);
  }, 180_000);
});
