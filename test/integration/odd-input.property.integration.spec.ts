import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import type { Json } from './platform-api.fixtures.js';

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
