import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../support/mcp-peers.js';
import { startBuiltServer, type BuiltServer, type LogLine } from '../support/built-server.js';
import {
  legacyToolCall,
  modernToolCall,
  parseMetrics,
  resultJson,
  sampleKey,
  type RawResponse,
} from '../support/raw-mcp.js';

/**
 * Logs, history and metrics against the BUILT server in a child process (requires `npm run build`; see
 * test/support/built-server.ts): one scripted MCP session, then what an operator sees of it — the one
 * `tools/call` log line per call on stdout (and no secret or argument anywhere in the output), the
 * access log without probes and scrapes, the call and confirmation history, `/metrics`, and the
 * audit trail.
 */

const CLIENT = 'obs-e2e';
const RUN = randomBytes(4).toString('hex');
const EMAIL = `obs.probe.${RUN}@example.com`;
const NAME = `Observability Probe ${RUN}`;
const PROBES = ['/health/live', '/health/ready', '/metrics', '/metrics?x=1'];
const TOOL_CALL_FIELDS = [
  'tool',
  'org',
  'token',
  'user',
  'client',
  'era',
  'protocolVersion',
  'status',
  'isError',
  'durationMs',
  'confirmation',
  'requestId',
  'correlationId',
] as const;

interface Who {
  userId: string;
  tokenId: string;
  organizationId: string;
}

/** One tools/call of the session and what every channel must say about it. */
interface Call {
  label: string;
  requestId: string;
  tool: string;
  status: string;
  isError: boolean;
  who: Who;
  era: '2025' | '2026-07-28';
  protocolVersion: string;
  client: string | null;
  /** Which confirmation the call carries (`asked` and `consumed` share one, as do the declined pair). */
  confirmation: 'confirmed' | 'declined' | null;
  response: RawResponse;
}

let s: BuiltServer;
const calls: Call[] = [];
const NO_ONE: Who = { userId: '', tokenId: '', organizationId: '' };
const ids: Record<'owner' | 'member' | 'readonly', Who> = {
  owner: NO_ONE,
  member: NO_ONE,
  readonly: NO_ONE,
};
const probeStatuses: Record<string, number> = {};
const urlSecretStatuses: number[] = [];
const INVITATION_SECRET = `inv${randomBytes(16).toString('hex')}`;
let createdId = '';
let declinedTargetId = '';
let originRefusal: RawResponse;

async function me(token: string): Promise<Who> {
  const res = await fetch(`${s.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
  const body: Json = await res.json();
  return { userId: body.person.id, tokenId: body.token.id, organizationId: body.organization.id };
}

async function admin(path: string): Promise<Json> {
  const res = await fetch(`${s.url}${path}`, {
    headers: { authorization: `Bearer ${s.tokens.owner}` },
  });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return res.json();
}

function rid(label: string): string {
  return `obs-${RUN}-${label}`;
}

async function modern(
  label: string,
  token: 'owner' | 'member' | 'readonly_pat',
  tool: string,
  args: Record<string, unknown>,
  expected: Pick<Call, 'status' | 'isError' | 'confirmation'>,
  params?: Record<string, unknown>,
): Promise<RawResponse> {
  const requestId = rid(label);
  const response = await modernToolCall(s.url, s.tokens[token], CLIENT, tool, args, {
    requestId,
    params,
  });
  calls.push({
    label,
    requestId,
    tool,
    ...expected,
    who: token === 'owner' ? ids.owner : token === 'member' ? ids.member : ids.readonly,
    era: '2026-07-28',
    protocolVersion: '2026-07-28',
    client: CLIENT,
    response,
  });
  return response;
}

function responseOf(label: string): RawResponse | undefined {
  return calls.find((c) => c.label === label)?.response;
}

/** The tools/call line of the call sent with `rid(label)` (the client's id: its correlation id). */
function lineOf(label: string): LogLine | undefined {
  return toolCallLines().find((l) => l.correlationId === rid(label));
}

/** The path an access-log line names. */
function pathOf(l: LogLine): string {
  return String(l.req?.url ?? l.url ?? '');
}

/** How many history rows a query of the admin endpoint returns. */
async function historyCount(query: string): Promise<number> {
  return (await admin(`/v1/mcp/tool-calls?limit=100&${query}`)).data.length;
}

/** The tools/call lines on stdout. */
function toolCallLines(): LogLine[] {
  return s.logLines().filter((l) => l.msg === 'tools/call');
}

/** The lines pino-http writes per request (access log). */
function accessLines(): LogLine[] {
  return s
    .logLines()
    .filter(
      (l) => l.responseTime !== undefined || /^request (completed|errored)/.test(String(l.msg)),
    );
}

beforeAll(async () => {
  s = await startBuiltServer();
  ids.owner = await me(s.tokens.owner);
  ids.member = await me(s.tokens.member);
  ids.readonly = await me(s.tokens.readonly_pat);

  const ok = { status: 'ok', isError: false, confirmation: null } as const;
  // Reads.
  const list = await modern('list', 'owner', 'list_portal_users', { limit: 2 }, ok);
  const firstId: string = resultJson(list.body).data[0].id;
  declinedTargetId = resultJson(list.body).data[1].id;
  await modern('get', 'owner', 'get_portal_user', { id: firstId }, ok);
  // A write.
  const created = await modern(
    'create',
    'owner',
    'create_portal_user',
    { email: EMAIL, name: NAME, send_invitation: false },
    ok,
  );
  createdId = resultJson(created.body).id;
  // A confirmed delete: ask → accept with the requestState.
  const ask = await modern(
    'delete-ask',
    'owner',
    'delete_portal_user',
    { id: createdId },
    { status: 'input_required', isError: false, confirmation: 'confirmed' },
  );
  await modern(
    'delete-accept',
    'owner',
    'delete_portal_user',
    { id: createdId },
    { status: 'ok', isError: false, confirmation: 'confirmed' },
    {
      requestState: ask.body.result.requestState,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    },
  );
  // A declined delete.
  const ask2 = await modern(
    'decline-ask',
    'owner',
    'delete_portal_user',
    { id: declinedTargetId },
    { status: 'input_required', isError: false, confirmation: 'declined' },
  );
  await modern(
    'decline',
    'owner',
    'delete_portal_user',
    { id: declinedTargetId },
    { status: 'USER_DECLINED', isError: true, confirmation: 'declined' },
    {
      requestState: ask2.body.result.requestState,
      inputResponses: { confirm: { action: 'decline' } },
    },
  );
  // Refusals: a person without the permission, a token without the scope.
  await modern(
    'member-delete',
    'member',
    'delete_portal_user',
    { id: declinedTargetId },
    { status: 'insufficient_permission', isError: true, confirmation: null },
  );
  await modern(
    'readonly-create',
    'readonly_pat',
    'create_portal_user',
    { email: `other.${EMAIL}`, name: NAME },
    { status: 'insufficient_scope', isError: true, confirmation: null },
  );
  // An unknown tool.
  await modern(
    'unknown',
    'owner',
    'no_such_tool',
    {},
    { status: 'rpc_error:-32602', isError: false, confirmation: null },
  );
  // The 2025 era.
  const legacyId = rid('legacy-list');
  calls.push({
    label: 'legacy-list',
    requestId: legacyId,
    tool: 'list_portal_users',
    ...ok,
    who: ids.owner,
    era: '2025',
    protocolVersion: '2025-06-18',
    // No session id: the User-Agent product names the client.
    client: 'obs-legacy/1.0',
    response: await legacyToolCall(
      s.url,
      s.tokens.owner,
      'list_portal_users',
      { limit: 1 },
      { requestId: legacyId, headers: { 'user-agent': 'obs-legacy/1.0 (e2e)' } },
    ),
  });

  // Refused by the transport (a browser origin that is not allowed): no tools/call at all.
  const refusalId = rid('evil-origin');
  originRefusal = await modernToolCall(
    s.url,
    s.tokens.owner,
    CLIENT,
    'list_portal_users',
    {},
    {
      requestId: refusalId,
      headers: { origin: 'https://evil.example.com' },
    },
  );

  // Secrets in URLs: a bearer token in the query string (refused: only the Authorization header
  // carries one) and an invitation token in its accept path. Neither may reach the log.
  for (const path of [
    `/v1/me?access_token=${s.tokens.owner}`,
    `/v1/me?token=${s.tokens.member}&limit=1`,
  ])
    urlSecretStatuses.push((await fetch(`${s.url}${path}`)).status);
  urlSecretStatuses.push(
    (
      await fetch(`${s.url}/v1/portal-invitations/${INVITATION_SECRET}/accept`, {
        method: 'POST',
      })
    ).status,
  );
  // Personal data in URLs: an address filtered for and a name searched for.
  for (const path of [
    `/v1/mail/outbox?to=${encodeURIComponent(EMAIL)}&limit=1`,
    `/v1/portal-users?q=${encodeURIComponent(NAME)}`,
  ])
    urlSecretStatuses.push(
      (await fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${s.tokens.owner}` } }))
        .status,
    );

  // Probes and scrapes, which the access log leaves out.
  for (const path of PROBES) probeStatuses[path] = (await fetch(`${s.url}${path}`)).status;

  // Read calls are written to the history in batches (every 250 ms): wait for all of them.
  const deadline = Date.now() + 5_000;
  while ((await admin('/v1/mcp/tool-calls?limit=100')).data.length < calls.length) {
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 100));
  }

  // stdout arrives through a pipe: a last request whose access line, once read, means every
  // line written before it has been read too.
  const sentinel = rid('sentinel');
  await fetch(`${s.url}/v1/mcp/confirmations?limit=1`, {
    headers: { authorization: `Bearer ${s.tokens.owner}`, 'x-request-id': sentinel },
  });
  const until = Date.now() + 5_000;
  while (!s.stdout().includes(`"${sentinel}"`) && Date.now() < until)
    await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 100));
}, 120_000);

afterAll(async () => s?.dispose());

describe('the scripted session itself', () => {
  it('got the answers it scripted', () => {
    for (const c of calls) expect(c.response.status, c.label).toBe(200);
    expect(responseOf('create')?.body.result.isError ?? false).toBe(false);
    expect(responseOf('delete-ask')?.body.result.resultType).toBe('input_required');
    expect(responseOf('delete-accept')?.body.result.isError ?? false).toBe(false);
    expect(responseOf('decline')?.body.result.isError).toBe(true);
    expect(responseOf('member-delete')?.body.result.isError).toBe(true);
    expect(responseOf('readonly-create')?.body.result.isError).toBe(true);
    expect(responseOf('unknown')?.body.error.code).toBe(-32602);
    expect(probeStatuses).toEqual(Object.fromEntries(PROBES.map((p) => [p, 200])));
    expect(urlSecretStatuses).toEqual([401, 401, 404, 200, 200]);
    expect(originRefusal.status).toBe(403);
    expect(originRefusal.body).toMatchObject({ error: { code: 'ORIGIN_NOT_ALLOWED' } });
  });
});

describe('stdout log', () => {
  it('has exactly one tools/call line per call, with the fields and values of that call', () => {
    const lines = toolCallLines();
    expect(lines).toHaveLength(calls.length);
    for (const c of calls) {
      const mine = lines.filter((l) => l.correlationId === c.requestId);
      expect(mine, c.label).toHaveLength(1);
      const line: LogLine = mine[0] ?? {};
      for (const field of TOOL_CALL_FIELDS)
        expect(line, `${c.label}: ${field}`).toHaveProperty(field);
      expect(line, c.label).toMatchObject({
        tool: c.tool,
        org: c.who.organizationId,
        token: c.who.tokenId,
        user: c.who.userId,
        client: c.client,
        era: c.era,
        protocolVersion: c.protocolVersion,
        status: c.status,
        isError: c.isError,
        // The id the server issued (its X-Request-Id answer), the client's kept beside it.
        requestId: c.response.headers.get('x-request-id'),
        correlationId: c.requestId,
      });
      expect(typeof line.durationMs).toBe('number');
      expect(line.durationMs).toBeGreaterThanOrEqual(0);
      expect(Object.keys(line)).not.toContain('arguments');
      expect(Object.keys(line)).not.toContain('args');
    }
    // The ask and its answer carry the same confirmation id; every other call none.
    const confirmed = lineOf('delete-ask')?.confirmation;
    const declined = lineOf('decline-ask')?.confirmation;
    expect(confirmed).toMatch(/^[0-9a-f-]{36}$/);
    expect(declined).toMatch(/^[0-9a-f-]{36}$/);
    expect(confirmed).not.toBe(declined);
    const groups = { confirmed, declined, none: null };
    expect(Object.fromEntries(calls.map((c) => [c.label, lineOf(c.label)?.confirmation]))).toEqual(
      Object.fromEntries(calls.map((c) => [c.label, groups[c.confirmation ?? 'none']])),
    );
  });

  it('never shows a token secret, an Authorization header or the arguments', () => {
    const output = `${s.stdout()}\n${s.stderr()}`;
    for (const [name, secret] of Object.entries(s.tokens)) {
      expect(output.includes(secret), `the ${name} token secret is in the output`).toBe(false);
    }
    // An Authorization header value, were a request's headers ever logged, shows only redacted.
    expect(output).not.toMatch(/"authorization"\s*:\s*"(?!\[redacted\])/i);
    expect(output).not.toMatch(/\b(pat|oat)_[A-Za-z0-9]{16,}/);
    expect(output.includes(INVITATION_SECRET), 'an invitation token is in the output').toBe(false);
    expect(
      accessLines().filter((l) => pathOf(l).includes('[redacted]')).length,
      'the requests with secrets or personal data in their URL are logged, redacted',
    ).toBe(5);
    expect(output.includes(EMAIL), 'the created e-mail (an argument) is in the output').toBe(false);
    expect(output.includes(NAME), 'the created name (an argument) is in the output').toBe(false);
  });

  it('access log: one line per request naming its path, none for /health* or /metrics', () => {
    const lines = accessLines();
    // The control: requests that must be there (else "no probe lines" would prove nothing).
    expect(
      lines.some((l) => pathOf(l).startsWith('/v1/me')),
      'no access-log line for GET /v1/me',
    ).toBe(true);
    expect(
      lines.some((l) => pathOf(l).startsWith('/v1/mcp/tool-calls')),
      'no access-log line for GET /v1/mcp/tool-calls',
    ).toBe(true);
    expect(lines.filter((l) => /^\/(health|metrics)/.test(pathOf(l))).map(pathOf)).toEqual([]);
  });
});

describe('call and confirmation history (admin endpoints)', () => {
  it('GET /v1/mcp/tool-calls lists exactly the calls of the session, each as it happened', async () => {
    const { data } = await admin('/v1/mcp/tool-calls?limit=100');
    expect(data).toHaveLength(calls.length);
    const logged = new Map(toolCallLines().map((l) => [String(l.correlationId), l]));
    for (const c of calls) {
      const rows = data.filter((r: Json) => r.correlation_id === c.requestId);
      expect(rows, c.label).toHaveLength(1);
      expect(rows[0], c.label).toMatchObject({
        request_id: c.response.headers.get('x-request-id'),
        tool: c.tool,
        status: c.status,
        is_error: c.isError,
        era: c.era,
        protocol_version: c.protocolVersion,
        client_name: c.client,
        user_id: c.who.userId,
        token_id: c.who.tokenId,
        confirmation_id: logged.get(c.requestId)?.confirmation ?? null,
      });
      // Arguments are kept only as a digest.
      expect(JSON.stringify(rows[0])).not.toContain(EMAIL);
    }
  });

  it('filters by tool and by status', async () => {
    const count = historyCount;
    expect(await count('tool=delete_portal_user')).toBe(
      calls.filter((c) => c.tool === 'delete_portal_user').length,
    );
    expect(await count('tool=list_portal_users')).toBe(2);
    expect(await count('status=input_required')).toBe(2);
    expect(await count('status=USER_DECLINED')).toBe(1);
    expect(await count(`status=${encodeURIComponent('rpc_error:-32602')}`)).toBe(1);
    expect(await count('tool=delete_portal_user&status=ok')).toBe(1);
    expect(await count('tool=create_portal_user&status=insufficient_scope')).toBe(1);
  });

  it('GET /v1/mcp/confirmations lists the two confirmations: one consumed, one declined', async () => {
    const { data } = await admin('/v1/mcp/confirmations?limit=100');
    expect(data).toHaveLength(2);
    const consumed = data.find((c: Json) => c.status === 'consumed');
    const declined = data.find((c: Json) => c.status === 'declined');
    expect(consumed).toMatchObject({
      id: lineOf('delete-accept')?.confirmation,
      tool: 'delete_portal_user',
      target_type: 'portal_user',
      target_id: createdId,
      client_name: CLIENT,
      user_id: ids.owner.userId,
      token_id: ids.owner.tokenId,
      protocol_version: '2026-07-28',
    });
    expect(consumed.decided_at).not.toBeNull();
    expect(declined).toMatchObject({
      id: lineOf('decline')?.confirmation,
      target_id: declinedTargetId,
      tool_call_id: null,
    });
    expect(declined.decided_at).not.toBeNull();
    expect((await admin('/v1/mcp/confirmations?status=declined')).data).toHaveLength(1);
  });

  it('links the consumed confirmation to the call it authorized (tool_call_id, detail)', async () => {
    const history: Json[] = (await admin('/v1/mcp/tool-calls?limit=100')).data;
    const accept = history.find((r) => r.correlation_id === rid('delete-accept'));
    const { data } = await admin('/v1/mcp/confirmations?status=consumed');
    expect(data[0].tool_call_id).toBe(accept.id);
    const detail = await admin(`/v1/mcp/confirmations/${data[0].id}`);
    expect(detail.tool_call).toMatchObject({ id: accept.id, status: 'ok' });
    // The confirmation's own chain, then what it authorized.
    expect(detail.audit_events.map((e: Json) => e.action)).toEqual([
      'confirmation.requested',
      'confirmation.confirmed',
      'confirmation.executed',
      'portal_user.deleted',
    ]);
  });
});

describe('/metrics', () => {
  let samples: Map<string, number>;
  beforeAll(async () => {
    const res = await fetch(`${s.url}/metrics`);
    samples = parseMetrics(await res.text());
  });
  const value = (name: string, labels: Record<string, string> = {}) =>
    samples.get(sampleKey(name, labels));

  it('counts the tool calls by tool and status', () => {
    const expected = new Map<string, number>();
    for (const c of calls) {
      const key = sampleKey('mcp_tool_calls_total', {
        tool: c.tool === 'no_such_tool' ? 'unknown' : c.tool,
        status: c.status.replace(/^rpc_error:/, ''),
      });
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    const actual = new Map([...samples].filter(([k]) => k.startsWith('mcp_tool_calls_total{')));
    expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(expected));
  });

  it('counts confirmations by outcome', () => {
    expect(value('mcp_confirmations_total', { outcome: 'asked' })).toBe(2);
    expect(value('mcp_confirmations_total', { outcome: 'consumed' })).toBe(1);
    expect(value('mcp_confirmations_total', { outcome: 'declined' })).toBe(1);
  });

  const req = (era: string, outcome: string) =>
    value('mcp_requests_total', { era, method: 'tools/call', outcome });

  it('counts MCP messages by era, method and outcome', () => {
    expect(req('2026-07-28', 'ok')).toBe(4);
    expect(req('2026-07-28', 'tool_error')).toBe(3);
    expect(req('2026-07-28', 'input_required')).toBe(2);
    expect(req('2026-07-28', 'protocol_error')).toBe(1);
    expect(req('2025', 'ok')).toBe(1);
  });

  it('counts the transport refusal by reason', () => {
    expect(value('mcp_transport_rejections_total', { reason: 'origin_not_allowed' })).toBe(1);
  });

  it('counts REST responses by route, never probes or scrapes, and shows the DB pool', () => {
    expect(value('http_requests_total', { route: 'GET /v1/me', status: '200' })).toBe(3);
    expect(
      value('http_requests_total', { route: 'GET /v1/mcp/tool-calls', status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    // Tool calls reach their REST endpoints in-process; those dispatches are counted as tool
    // calls only (the session never calls GET /v1/portal-users/:id directly).
    expect(
      value('http_requests_total', { route: 'GET /v1/portal-users/:id', status: '200' }) ?? 0,
    ).toBe(0);
    const routes = [...samples.keys()].filter((k) => k.startsWith('http_requests_total{'));
    expect(routes.filter((k) => /route="[A-Z]+ \/(health|metrics)/.test(k))).toEqual([]);
    expect(value('db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(value('db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
    expect(value('db_pool_connections', { state: 'waiting' })).toBe(0);
  });
});

describe('audit trail', () => {
  it('shows the create and the confirmed delete, by the owner via MCP, with client and confirmation', async () => {
    const { data } = await admin(
      '/v1/audit-events?channel=mcp&resource_type=portal_user&limit=100',
    );
    const confirmation: unknown = lineOf('delete-accept')?.confirmation;
    const common = {
      channel: 'mcp',
      client_name: CLIENT,
      actor_user_id: ids.owner.userId,
      token_id: ids.owner.tokenId,
      resource_type: 'portal_user',
      resource_id: createdId,
    };
    expect(data).toHaveLength(2);
    expect(data.find((e: Json) => e.action === 'portal_user.created')).toMatchObject({
      ...common,
      request_id: responseOf('create')?.headers.get('x-request-id'),
      confirmation_id: null,
    });
    expect(data.find((e: Json) => e.action === 'portal_user.deleted')).toMatchObject({
      ...common,
      request_id: responseOf('delete-accept')?.headers.get('x-request-id'),
      confirmation_id: confirmation,
    });
  });
});
