import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '@app/rest-contract';
import { textJsonOf } from '../support/mcp-peers.js';
import { legacyToolCall, post, type RawResponse } from '../support/raw-mcp.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { call, OAUTH_FORM_ENDPOINTS, snapshot, type Json } from './platform-api.fixtures.js';

/**
 * Odd input an outside tester sent: each answered 500 once. Every one must be a 4xx with the
 * envelope, naming the field where there is one, and change nothing.
 */
/** A 4xx with the envelope; `field`: the details name it. */
function expectEnvelope(r: { status: number; body: Json }, status: number, field = '') {
  expect(r.status).toBe(status);
  expect(r.body).toEqual({
    error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
  });
  const fields: string[] = Array.isArray(r.body.error.details)
    ? r.body.error.details.map((d: Json) => d.field)
    : [''];
  expect(field === '' || fields.includes(field), `details name ${field}`).toBe(true);
}

describe('odd input is a 4xx with the envelope, never a 500', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t?.close());

  /** Every GET route of the API that takes `since`, read from its OpenAPI document. */
  async function timedRoutes(): Promise<string[]> {
    const doc: Json = await (await t.request('/v1/openapi.json')).json();
    const paths: Array<[string, Json]> = Object.entries(doc.paths);
    return paths
      .filter(([, item]) =>
        (item.get?.parameters ?? []).some((p: Json) => p.in === 'query' && p.name === 'since'),
      )
      .map(([path]) => path);
  }

  it('since/until: anything but an RFC 3339 date-time on a real day is 422 naming the field', async () => {
    const routes = await timedRoutes();
    // The lists filtered by time, and the per-minute series; a new one joins by itself.
    expect(routes).toEqual(
      expect.arrayContaining([
        '/v1/audit-events',
        '/v1/mcp/tool-calls',
        '/v1/mcp/confirmations',
        '/v1/mcp/tool-calls/per-minute',
      ]),
    );
    for (const path of routes) {
      for (const value of [
        '2026',
        '2026-W01',
        '2026-W01-1',
        '2026-01-01T10Z',
        '2026-01-01T10:00:00,5Z',
        '2026-02-30T00:00:00Z',
        '2026-01-01T00:00:00Z\u0000',
      ]) {
        for (const field of ['since', 'until']) {
          const r = await call(t, 'GET', `${path}?${field}=${encodeURIComponent(value)}`);
          expect({ path, field, value, status: r.status }).toEqual({
            path,
            field,
            value,
            status: 422,
          });
          expectEnvelope(r, 422, field);
        }
      }
      // Any offset RFC 3339 allows reaches the database as UTC.
      for (const value of ['2026-01-01T00:00:00.5+01:00', '2026-01-01T00:00:00+23:59']) {
        const ok = await call(t, 'GET', `${path}?until=${encodeURIComponent(value)}`);
        expect({ path, value, status: ok.status }).toEqual({ path, value, status: 200 });
      }
    }
  });

  it('list_audit_events {since:"2026"} is a VALIDATION_ERROR result, not -32603', async () => {
    const r = await legacyToolCall(
      t.url,
      t.tokens.owner,
      'list_audit_events',
      { since: '2026' },
      {
        requestId: randomUUID(),
      },
    );
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result).not.toHaveProperty('structuredContent');
    expect(textJsonOf(r.body.result).error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [expect.objectContaining({ field: 'since' })],
    });
  });

  it('path arguments reach the endpoint as they are: an over-long, a slashed or an empty id is a VALIDATION_ERROR on id', async () => {
    for (const id of ['a'.repeat(500), '../../v1/tokens', `${randomUUID()}/x`, '']) {
      const r = await legacyToolCall(
        t.url,
        t.tokens.owner,
        'get_portal_user',
        { id },
        { requestId: randomUUID() },
      );
      expect(r.status).toBe(200);
      expect(r.body.result.isError).toBe(true);
      expect(textJsonOf(r.body.result).error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [expect.objectContaining({ field: 'id' })],
      });
    }
  });

  it('a well-formed cursor holding an impossible position is 422 on cursor, on every list route', async () => {
    const id = randomUUID();
    const lists = [
      '/v1/portal-users',
      '/v1/accounts',
      '/v1/audit-events',
      '/v1/mcp/tool-calls',
      '/v1/mcp/confirmations',
      '/v1/mail/outbox',
      '/v1/tokens',
      '/v1/members',
    ];
    for (const path of lists) {
      // Members are listed by e-mail: their cursor key is text, which only U+0000 makes unusable.
      const keys =
        path === '/v1/members'
          ? ['\u0000', 'a\u0000b']
          : ['2026-02-30T00:00:00.000000Z', '2026-01-01T25:00:00.000000Z', '\u0000'];
      for (const key of keys) {
        const r = await call(t, 'GET', `${path}?cursor=${encodeCursor([key, id])}`);
        expect({ path, key, status: r.status }).toEqual({ path, key, status: 422 });
        expectEnvelope(r, 422, 'cursor');
      }
    }
  });

  it('U+0000 in query filters and body strings is 422 naming the field; nothing is written', async () => {
    const before = await snapshot(t);
    for (const path of [
      '/v1/portal-users?q=a%00',
      '/v1/accounts?q=%00',
      '/v1/mcp/tool-calls?tool=a%00',
      '/v1/mcp/tool-calls?status=%00',
      '/v1/mcp/tool-calls?client=x%00y',
      '/v1/mcp/confirmations?tool=%00',
      '/v1/mail/outbox?to=%00',
      `/v1/portal-users/${randomUUID()}%00`,
    ]) {
      const r = await call(t, 'GET', path);
      expect(r.status, path).toBe(422);
      expect(r.body.error.code, path).toBe('VALIDATION_ERROR');
    }
    for (const [method, path, json, field] of [
      ['POST', '/v1/accounts', { name: 'a\u0000' }, 'name'],
      ['POST', '/v1/accounts', { name: 'Nul Ltd', external_id: 'x\u0000' }, 'external_id'],
      ['POST', '/v1/portal-users', { email: 'nul@example.com', name: 'N\u0000' }, 'name'],
      ['POST', '/v1/tokens', { name: 'n\u0000', scopes: [] }, 'name'],
    ] as const) {
      const r = await call(t, method, path, { json });
      expectEnvelope(r, 422, field);
    }
    expect(await snapshot(t)).toBe(before);
  });

  /** Field names every JavaScript object has a member called: the tester's and their cousins. */
  const PROTOTYPE_NAMES = [
    'constructor',
    '__proto__',
    'prototype',
    'toString',
    'valueOf',
    'hasOwnProperty',
    'isPrototypeOf',
    '__defineGetter__',
    '__lookupSetter__',
    'toLocaleString',
  ];

  it('a field named like a member of every object is 422 naming it, at any depth, on every write; nothing is written', async () => {
    const before = await snapshot(t);
    const portalUser: Json = (await call(t, 'GET', '/v1/portal-users?limit=1')).body.data[0];
    const account: Json = (await call(t, 'GET', '/v1/accounts?limit=1')).body.data[0];
    for (const key of PROTOTYPE_NAMES) {
      for (const [method, path, json, field] of [
        ['POST', '/v1/accounts', { name: 'Proto Ltd', [key]: { a: 1 } }, key],
        ['POST', '/v1/accounts', { name: { [key]: { a: 1 } } }, `name.${key}`],
        ['PATCH', `/v1/accounts/${account.id}`, { name: 'P', x: [{ [key]: {} }] }, `x[0].${key}`],
        ['POST', '/v1/portal-users', { email: 'proto@example.com', name: 'P', [key]: 'x' }, key],
        [
          'PATCH',
          `/v1/portal-users/${portalUser.id}`,
          { name: { [key]: { b: {} } } },
          `name.${key}`,
        ],
        ['POST', '/v1/tokens', { name: 'p', scopes: [], [key]: { [key]: {} } }, key],
      ] as const) {
        const r = await call(t, method, path, { json });
        expect({ key, path, status: r.status }).toEqual({ key, path, status: 422 });
        expectEnvelope(r, 422, field);
      }
    }
    // In the query string too (a list's filters).
    const r = await call(t, 'GET', '/v1/accounts?constructor=x');
    expectEnvelope(r, 422, 'constructor');
    expect(await snapshot(t)).toBe(before);
  });

  it('the same names in a write tool’s arguments are a VALIDATION_ERROR result naming the field, not -32603', async () => {
    for (const key of PROTOTYPE_NAMES) {
      const r = await legacyToolCall(
        t.url,
        t.tokens.owner,
        'create_account',
        { name: { [key]: { a: 1 } } },
        { requestId: randomUUID() },
      );
      expect(r.status).toBe(200);
      expect(r.body.result?.isError, key).toBe(true);
      expect(textJsonOf(r.body.result).error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [expect.objectContaining({ field: `name.${key}` })],
      });
    }
  });

  /** One JSON-RPC request on the 2025-11-25 revision, as the owner. */
  const rpc = (method: string, params: Json): Promise<RawResponse> =>
    post(
      t.url,
      t.tokens.owner,
      { jsonrpc: '2.0', id: 1, method, params },
      { 'mcp-protocol-version': '2025-11-25' },
    );

  it('U+0000 or a lone surrogate in completion, prompt and resource arguments is -32602, not -32603', async () => {
    for (const value of ['a\u0000', '\ud800', 'x\udc00y']) {
      for (const [method, params] of [
        [
          'completion/complete',
          {
            ref: { type: 'ref/resource', uri: 'platform://accounts/{id}' },
            argument: { name: 'id', value },
          },
        ],
        [
          'completion/complete',
          {
            ref: { type: 'ref/prompt', name: 'onboard_portal_user' },
            argument: { name: 'account_id', value },
          },
        ],
        ['prompts/get', { name: 'review_recent_activity', arguments: { since: value } }],
        ['prompts/get', { name: 'onboard_portal_user', arguments: { email: value, name: 'N' } }],
        ['resources/read', { uri: `platform://accounts/${value}` }],
      ] as const) {
        const r = await rpc(method, params);
        expect({ method, value, code: r.body.error?.code }).toEqual({
          method,
          value,
          code: -32602,
        });
      }
    }
  });

  /** Values the string rules refuse, as a form body carries them (percent-encoded bytes). */
  const REFUSED_FORM_VALUES: Array<[string, string, RegExp]> = [
    ['U+0000', 'a%00b', /U\+0000/],
    ['a lone surrogate (CESU-8 bytes)', 'a%ED%A0%80b', /well-formed UTF-8/],
    ['a cut UTF-8 sequence', 'a%E2%82', /well-formed UTF-8/],
    ['5 000 characters', 'x'.repeat(5_000), /at most 4096 characters/],
  ];

  async function postForm(path: string, body: string): Promise<{ status: number; body: Json }> {
    const res = await t.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    return { status: res.status, body: await res.json() };
  }

  it('every parameter of a form posted to the OAuth server meets the string rules: invalid_request naming it, before oidc-provider reads it', async () => {
    for (const [path, names] of OAUTH_FORM_ENDPOINTS) {
      for (const name of names) {
        for (const [what, value, says] of REFUSED_FORM_VALUES) {
          const r = await postForm(path, `grant_type=refresh_token&client_id=x&${name}=${value}`);
          const where = `${path} ${name}: ${what}`;
          expect({ where, status: r.status, error: r.body.error }).toEqual({
            where,
            status: 400,
            error: 'invalid_request',
          });
          expect(r.body.error_description, where).toMatch(says);
          expect(r.body.error_description, where).toContain(name);
        }
      }
    }
  });

  it('the sign-in, sign-out and consent forms meet the same rules: 400 with the envelope naming the field', async () => {
    for (const [path, names] of [
      ['/signin', ['email', 'csrf', 'return_to']],
      ['/signin/link', ['token', 'csrf']],
      ['/signout', ['csrf', 'return_to']],
      [`/consent/${randomUUID()}/confirm`, ['csrf', 'decision', 'membership']],
    ] as const) {
      for (const name of names) {
        for (const [what, value, says] of REFUSED_FORM_VALUES) {
          const r = await postForm(path, `${name}=${value}`);
          const where = `${path} ${name}: ${what}`;
          expect({ where, status: r.status, code: r.body.error?.code }).toEqual({
            where,
            status: 400,
            code: 'BAD_REQUEST',
          });
          expect(r.body.error.message, where).toMatch(says);
          expect(r.body.error.message, where).toContain(name);
        }
      }
    }
  });

  it('a 5 000-deep JSON body is refused before validation, with the envelope', async () => {
    expect.hasAssertions();
    let deep = '"x"';
    for (let i = 0; i < 5_000; i++) deep = `[${deep}]`;
    const res = await t.request('/v1/portal-users', {
      method: 'POST',
      token: 'owner',
      headers: { 'content-type': 'application/json' },
      body: `{"email":"deep@example.com","name":"Deep","external_id":${deep}}`,
    });
    expectEnvelope({ status: res.status, body: await res.json() }, 400);
    // Within the body limit but deeper than any DTO: the input walk refuses it by name.
    let nested: unknown = 'x';
    for (let i = 0; i < 40; i++) nested = [nested];
    const r = await call(t, 'POST', '/v1/accounts', { json: { name: 'Deep', tax_id: nested } });
    expectEnvelope(r, 422);
  });

  it('Fastify’s own refusals carry the envelope and never echo the URL', async () => {
    const long = 'a'.repeat(5_000);
    const res = await t.request(`/v1/portal-users/${long}`, { token: 'owner' });
    const body: Json = await res.json();
    expect(res.status).toBe(414);
    expect(body).toEqual({ error: { code: 'URI_TOO_LONG', message: expect.any(String) } });
    expect(JSON.stringify(body)).not.toContain(long.slice(0, 50));

    const raw = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${t.url}/v1/me`,
        { headers: { authorization: `Bearer pat_${'x'.repeat(60_000)}` } },
        (r) => {
          let text = '';
          r.on('data', (c: Buffer) => (text += c.toString()));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(raw.status).toBe(431);
    expect(JSON.parse(raw.body)).toEqual({
      error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String) },
    });
  });
});
