import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { OAUTH_FORM_ENDPOINTS, type Json } from './platform-api.fixtures.js';

/**
 * Property: whatever a client puts in a list route's query or a create/update body — any names
 * the route declares plus unknown ones, any JSON values, hostile strings — the answer is never a
 * 5xx, and every refusal is the API envelope. The routes and their inputs come from the OpenAPI
 * document, so a route added later is covered without editing this test.
 */

interface Operation {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  query: string[];
  body: string[];
}

const HOSTILE = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\u202Eevil',
  'x'.repeat(5_000),
  '2026',
  '2026-W01-1',
  '2026-02-30T00:00:00Z',
  '2026-01-01T10:00:00,5Z',
  '-1',
  '0',
  '1e309',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  "' OR 1=1 --",
  '%00',
  '00000000-0000-0000-0000-000000000000',
  'eyJhIjoxfQ',
  'WyIyMDI2LTAyLTMwVDAwOjAwOjAwLjAwMDAwMFoiLCJhIl0',
];

const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ maxLength: 300 }),
);
const anyValue = fc.oneof(
  hostileString,
  fc.jsonValue({ maxDepth: 3 }),
  fc.integer(),
  fc.double(),
  fc.constant(null),
  fc.array(hostileString, { maxLength: 3 }),
);

/** A path segment a client can send at all (a lone surrogate cannot be percent-encoded). */
function encodable(s: string): boolean {
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}

function operationsOf(openapi: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(openapi.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const m = method.toUpperCase();
      if (m !== 'GET' && m !== 'POST' && m !== 'PATCH') continue;
      const query = (op.parameters ?? [])
        .filter((p: Json) => p.in === 'query')
        .map((p: Json) => String(p.name));
      const ref: string | undefined = op.requestBody?.content?.['application/json']?.schema?.$ref;
      const schema =
        ref === undefined ? undefined : openapi.components.schemas[ref.split('/').pop()!];
      const body = Object.keys(schema?.properties ?? {});
      if (m === 'GET' && query.length === 0) continue;
      if (m !== 'GET' && body.length === 0) continue;
      ops.push({ method: m, path, query, body });
    }
  }
  return ops;
}

function isEnvelope(body: Json): boolean {
  return (
    typeof body?.error?.code === 'string' &&
    typeof body.error.message === 'string' &&
    Object.keys(body).length === 1
  );
}

function fieldsArbitrary(names: readonly string[]) {
  return fc.dictionary(
    fc.oneof(fc.constantFrom(...names), fc.constantFrom('bogus', 'a\u0000', '__proto__')),
    anyValue,
    { maxKeys: names.length + 1 },
  );
}

describe('property: odd input never answers 5xx, always with the envelope', () => {
  let t: TestServer;
  let operations: Operation[];
  beforeAll(async () => {
    t = await startTestServer();
    operations = operationsOf(await (await t.request('/v1/openapi.json')).json());
  });
  afterAll(async () => t?.close());

  async function check(op: Operation, fields: Record<string, unknown>, pathId: string) {
    const path = op.path.replace(/\{[^}]+\}/g, encodeURIComponent(pathId));
    let url = path;
    let json: unknown;
    if (op.method === 'GET') {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(fields))
        qs.append(k, typeof v === 'string' ? v : JSON.stringify(v));
      url = `${path}?${qs.toString()}`;
    } else json = fields;
    const res = await t.request(url, { method: op.method, token: 'owner', json });
    const text = await res.text();
    const where = `${op.method} ${url.slice(0, 200)} ${JSON.stringify(json)?.slice(0, 200)}`;
    expect(res.status, `${where} → ${res.status} ${text.slice(0, 300)}`).toBeLessThan(500);
    const envelope = res.status < 400 || isEnvelope(JSON.parse(text));
    expect(envelope, `${where}: not the envelope: ${text.slice(0, 300)}`).toBe(true);
  }

  it('covers every list route and every create/update body of the OpenAPI document', () => {
    const names = operations.map((o) => `${o.method} ${o.path}`);
    for (const expected of [
      'GET /v1/portal-users',
      'GET /v1/accounts',
      'GET /v1/audit-events',
      'GET /v1/mcp/tool-calls',
      'GET /v1/mcp/confirmations',
      'GET /v1/members',
      'GET /v1/tokens',
      'GET /v1/mail/outbox',
      'POST /v1/portal-users',
      'PATCH /v1/portal-users/{id}',
      'POST /v1/accounts',
      'PATCH /v1/accounts/{id}',
      'POST /v1/tokens',
      'PATCH /v1/members/{user_id}',
    ])
      expect(names).toContain(expected);
  });

  it('any query or body, on each such route', async () => {
    expect.hasAssertions();
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(
          fieldsArbitrary(op.method === 'GET' ? op.query : op.body),
          fc.oneof(
            fc.uuid(),
            hostileString.filter((s) => s.length > 0 && encodable(s)),
          ),
          async (fields, pathId) => check(op, fields, pathId),
        ),
        { numRuns: 25, endOnFailure: true },
      );
    }
  }, 600_000);
});

/**
 * A value as a form body carries it: percent-encoded UTF-8, except that a lone surrogate (which
 * no encoder accepts) goes as the bytes of its ill-formed UTF-8 (CESU-8), as a hostile client
 * would send them.
 */
function formValue(value: string): string {
  let out = '';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff)
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    else out += encodeURIComponent(ch);
  }
  return out;
}

function formBody(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .flatMap(([k, v]) =>
      (Array.isArray(v) ? v : [v]).map(
        (item) =>
          `${formValue(k)}=${formValue(typeof item === 'string' ? item : (JSON.stringify(item) ?? ''))}`,
      ),
    )
    .join('&');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A string the input rules refuse: U+0000, not well-formed Unicode, or over the 4096 cap. */
function refusedText(text: string): boolean {
  return text.includes('\u0000') || LONE_SURROGATE.test(text) || text.length > 4096;
}

/** Whether any name or value of these fields is such a string. */
function hasRefusedText(fields: Record<string, unknown>): boolean {
  return Object.entries(fields).some(
    ([name, value]) =>
      refusedText(name) || [value].flat().some((v) => typeof v === 'string' && refusedText(v)),
  );
}

/** What the OAuth endpoints answer a client (RFC 6749 §5.2, RFC 7591 §3.2.2): `{error, …}`. */
function isOAuthError(body: Json): boolean {
  return typeof body?.error === 'string' && /^[\x20-\x7e]+$/.test(body.error);
}

/** Names of members every object has, and `prototype`: as keys in client input. */
const PROTOTYPE_KEYS = ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty'];

/**
 * A JSON body (as text: `__proto__` must stay an own key) of the route's fields whose values, at
 * some depth, hold an object with a prototype-named key; or that key at the top.
 */
function prototypeBodyArbitrary(names: readonly string[]) {
  const poisoned = fc.letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc
        .tuple(fc.constantFrom(...PROTOTYPE_KEYS), fc.jsonValue({ maxDepth: 1 }))
        .map(([k, v]) => `{${JSON.stringify(k)}:${JSON.stringify(v)}}`),
      tie('node').map((inner) => `{"a":${inner}}`),
      tie('node').map((inner) => `[${inner}]`),
    ),
  })).node;
  return fc
    .tuple(
      fc.constantFrom(...names, ...PROTOTYPE_KEYS),
      poisoned,
      fc.dictionary(fc.constantFrom(...names), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
    )
    .map(([key, value, rest]) => {
      const others = Object.entries(rest)
        .filter(([k]) => k !== key)
        .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
      return `{${[...others, `${JSON.stringify(key)}:${value}`].join(',')}}`;
    });
}

describe('property: prototype-named keys anywhere in a write are a 422 naming the field, on REST and MCP', () => {
  let t: TestServer;
  let writes: Operation[];
  beforeAll(async () => {
    t = await startTestServer();
    writes = operationsOf(await (await t.request('/v1/openapi.json')).json()).filter(
      (o) => o.method !== 'GET',
    );
  });
  afterAll(async () => t?.close());

  it('every REST create/update body', async () => {
    expect.hasAssertions();
    for (const op of writes) {
      await fc.assert(
        fc.asyncProperty(prototypeBodyArbitrary(op.body), async (text) => {
          const path = op.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
          const res = await t.request(path, {
            method: op.method,
            token: 'owner',
            headers: { 'content-type': 'application/json' },
            body: text,
          });
          const body = await res.text();
          const where = `${op.method} ${path} ${text.slice(0, 300)} → ${res.status} ${body.slice(0, 300)}`;
          expect(res.status, where).toBe(422);
          const envelope: Json = JSON.parse(body);
          expect(isEnvelope(envelope), where).toBe(true);
          expect(envelope.error.code, where).toBe('VALIDATION_ERROR');
          expect(
            envelope.error.details.some((d: Json) =>
              PROTOTYPE_KEYS.some((k) => String(d.field).includes(k)),
            ),
            where,
          ).toBe(true);
        }),
        { numRuns: 15, endOnFailure: true },
      );
    }
  }, 600_000);

  it('every MCP write tool: a VALIDATION_ERROR tool result or -32602, never -32603', async () => {
    expect.hasAssertions();
    const writeTools = [
      ['create_account', ['name', 'website', 'notes']],
      ['update_account', ['id', 'name', 'website']],
      ['create_portal_user', ['email', 'name', 'account_id']],
      ['update_portal_user', ['id', 'name', 'email']],
      ['onboard_portal_user', ['email', 'name', 'account']],
    ] as const;
    for (const [tool, names] of writeTools) {
      await fc.assert(
        fc.asyncProperty(prototypeBodyArbitrary(names), async (text) => {
          const res = await t.request('/mcp', {
            method: 'POST',
            token: 'owner',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2025-06-18',
            },
            body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":${text}}}`,
          });
          const raw = await res.text();
          const where = `${tool} ${text.slice(0, 300)} → ${res.status} ${raw.slice(0, 300)}`;
          expect(res.status, where).toBe(200);
          expect(['rpc -32602', 'tool VALIDATION_ERROR'], where).toContain(mcpOutcome(raw));
        }),
        { numRuns: 15, endOnFailure: true },
      );
    }
  }, 600_000);
});

/** How an MCP tools/call was answered: `rpc <code>`, `tool <envelope code>` or `tool ok`. */
function mcpOutcome(raw: string): string {
  const answer: Json = JSON.parse(raw);
  if (answer.error !== undefined) return `rpc ${String(answer.error.code)}`;
  if (answer.result?.isError !== true) return 'tool ok';
  const envelope: Json = JSON.parse(answer.result.content[0].text);
  return `tool ${String(envelope.error.code)}`;
}

/** Known parameter names (with some values that make the request get further) and hostile ones. */
function parameters(names: readonly string[], known: () => Record<string, readonly string[]>) {
  return fc.dictionary(
    fc.oneof(fc.constantFrom(...names), fc.constantFrom('bogus', 'a\u0000', '\uD800', '__proto__')),
    fc.oneof(
      hostileString,
      fc.constantFrom(...Object.values(known()).flat(), 'x'),
      fc.array(hostileString, { minLength: 2, maxLength: 3 }),
    ),
    { maxKeys: names.length + 1 },
  );
}

/**
 * What is wrong with an OAuth endpoint's answer, or `ok`: never a 5xx; a refusal is the OAuth
 * error object (or, where a browser is sent, `page`, our HTML page).
 */
function oauthAnswerProblem(
  status: number,
  contentType: string | null,
  text: string,
  page: boolean,
): string {
  if (status >= 500) return `${status} ${text.slice(0, 300)}`;
  if (status < 400) return 'ok';
  if (page && contentType?.startsWith('text/html')) return 'ok';
  try {
    return isOAuthError(JSON.parse(text)) ? 'ok' : `not an OAuth error: ${text.slice(0, 300)}`;
  } catch {
    return `not JSON: ${text.slice(0, 300)}`;
  }
}

async function expectOAuthAnswer(res: Response, where: string, page: boolean) {
  const text = await res.text();
  expect(oauthAnswerProblem(res.status, res.headers.get('content-type'), text, page), where).toBe(
    'ok',
  );
}

/** `{status, error}` of a refusal by the string rules, when the fields hold refused text. */
const STRING_RULE_REFUSAL = { status: 400, error: 'invalid_request' };

describe('property: the OAuth server and the sign-in page never answer 5xx, always their documented refusal', () => {
  let t: TestServer;
  let clientId: string;
  const REDIRECT = 'http://127.0.0.1:9/callback';
  beforeAll(async () => {
    t = await startTestServer({
      oauthRegistrationsPerIpPerHour: 100_000,
      oauthRegistrationsPerHour: 100_000,
    });
    const registered = await t.request('/oauth/register', {
      method: 'POST',
      json: {
        redirect_uris: [REDIRECT],
        client_name: 'Property client',
        token_endpoint_auth_method: 'none',
      },
    });
    const client: Json = await registered.json();
    if (registered.status !== 201) throw new Error(`registration: ${JSON.stringify(client)}`);
    clientId = client.client_id;
  });
  afterAll(async () => t?.close());

  const known = () => ({
    client_id: [clientId],
    redirect_uri: [REDIRECT],
    response_type: ['code'],
    grant_type: ['authorization_code', 'refresh_token', 'client_credentials'],
    code_challenge_method: ['S256'],
    scope: ['accounts:read', 'openid'],
    resource: [`${t.url}/mcp`],
    token_type_hint: ['access_token', 'refresh_token'],
  });

  it('GET /oauth/authorize: any query', async () => {
    await fc.assert(
      fc.asyncProperty(
        parameters(
          [
            'client_id',
            'redirect_uri',
            'response_type',
            'scope',
            'state',
            'code_challenge',
            'code_challenge_method',
            'resource',
            'ui_locales',
            'login_hint',
            'prompt',
            'nonce',
          ],
          known,
        ),
        async (fields) => {
          const query = formBody(fields);
          const res = await t.request(`/oauth/authorize?${query}`, { redirect: 'manual' });
          const where = `GET /oauth/authorize?${query.slice(0, 300)}`;
          // Refused on our page, never sent on to the client (nor to oidc-provider).
          expect(hasRefusedText(fields) ? res.status : 400, where).toBe(400);
          await expectOAuthAnswer(res, where, true);
        },
      ),
      { numRuns: 60, endOnFailure: true },
    );
  }, 300_000);

  for (const [path, names] of OAUTH_FORM_ENDPOINTS) {
    it(`POST ${path}: any form body, refused by the string rules as invalid_request`, async () => {
      await fc.assert(
        fc.asyncProperty(parameters(names, known), async (fields) => {
          const body = formBody(fields);
          const res = await t.request(path, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body,
          });
          const where = `POST ${path} ${body.slice(0, 300)}`;
          const answer: Json = await res
            .clone()
            .json()
            .catch(() => ({}));
          const seen = { status: res.status, error: answer.error };
          expect(hasRefusedText(fields) ? seen : STRING_RULE_REFUSAL, where).toEqual(
            STRING_RULE_REFUSAL,
          );
          await expectOAuthAnswer(res, where, false);
        }),
        { numRuns: 60, endOnFailure: true },
      );
    }, 300_000);
  }

  it('POST /oauth/register: any JSON metadata', async () => {
    expect.hasAssertions();
    const names = [
      'redirect_uris',
      'client_name',
      'application_type',
      'token_endpoint_auth_method',
      'grant_types',
      'response_types',
      'scope',
      'client_uri',
      'logo_uri',
      'contacts',
      'post_logout_redirect_uris',
      'jwks',
      'software_id',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fieldsArbitrary(names).map((f) => JSON.stringify(f)),
          prototypeBodyArbitrary(names),
        ),
        async (text) => {
          const res = await t.request('/oauth/register', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: text,
          });
          await expectOAuthAnswer(res, `POST /oauth/register ${text.slice(0, 300)}`, false);
        },
      ),
      { numRuns: 60, endOnFailure: true },
    );
  }, 300_000);

  it('POST /signin: any form body is a page or the envelope, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        parameters(['csrf', 'email', 'return_to'], () => ({ email: ['olivia.owner@acme.test'] })),
        async (fields) => {
          const body = formBody(fields);
          const res = await t.request('/signin', {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body,
          });
          const text = await res.text();
          const what = `POST /signin ${body.slice(0, 300)} → ${res.status} ${text.slice(0, 300)}`;
          expect(res.status, what).toBeLessThan(500);
          const html = res.headers.get('content-type')?.startsWith('text/html') === true;
          const envelope: Json = html ? undefined : JSON.parse(text);
          const seen = { status: res.status, code: envelope?.error?.code };
          const refusal = { status: 400, code: 'BAD_REQUEST' };
          expect(hasRefusedText(fields) ? seen : refusal, what).toEqual(refusal);
          expect(html || isEnvelope(envelope), what).toBe(true);
        },
      ),
      { numRuns: 40, endOnFailure: true },
    );
  }, 300_000);
});
