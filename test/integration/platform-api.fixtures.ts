import { Ajv, type ValidateFunction } from 'ajv';
import { getMetadataStorage } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { randomUUID } from 'node:crypto';
import { Client, type QueryResultRow } from 'pg';
import { expect } from 'vitest';
import { legacyToolCall } from '../support/raw-mcp.js';
import type { TestServer } from '../support/test-server.js';

/** Sorts strings (for order-independent comparisons). */
export const byText = (a: string, b: string): number => a.localeCompare(b);

/** Helpers for the REST API integration tests (portal users, accounts, audit trail, members, tokens). */

export interface ApiResult<T = Json> {
  status: number;
  body: T;
}
// oxlint-disable-next-line typescript/no-explicit-any -- test bodies are read field by field
export type Json = any;

export async function call(
  t: TestServer,
  method: string,
  path: string,
  options: { token?: string; json?: unknown } = {},
): Promise<ApiResult> {
  const res = await t.request(path, {
    method,
    token: options.token ?? 'owner',
    json: options.json,
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

/**
 * A tool called over `/mcp` with a token (a demo token's name or a secret): the only way an OAuth
 * token reaches a REST route, since the REST API refuses tokens issued for the MCP URL. `body` is
 * the route's answer as the tool carries it (the error envelope when `isError`).
 */
export async function callTool(
  t: TestServer,
  token: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ isError: boolean; body: Json }> {
  const secret = (t.tokens as Record<string, string>)[token] ?? token;
  const res = await legacyToolCall(t.url, secret, name, args, { requestId: randomUUID() });
  const result: Json = res.body.result;
  const text: string | undefined = result?.content?.find((c: Json) => c.type === 'text')?.text;
  if (text === undefined) throw new Error(`${name}: no tool result (${JSON.stringify(res.body)})`);
  return { isError: result.isError === true, body: JSON.parse(text) };
}

/** The OAuth server's endpoints that take a form body, and the parameters each reads. */
export const OAUTH_FORM_ENDPOINTS = [
  [
    '/oauth/token',
    [
      'grant_type',
      'code',
      'redirect_uri',
      'code_verifier',
      'client_id',
      'refresh_token',
      'resource',
      'scope',
    ],
  ],
  ['/oauth/revoke', ['token', 'token_type_hint', 'client_id']],
] as const;

/** Runs SQL directly against the test database (to prove what was, or was not, written). */
export async function sql<T = Record<string, unknown>>(
  t: TestServer,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: t.db.url });
  await client.connect();
  try {
    const result = await client.query<T & QueryResultRow>(text, params);
    return result.rows;
  } finally {
    await client.end();
  }
}

export async function countRows(
  t: TestServer,
  table: string,
  where = 'true',
  params: unknown[] = [],
): Promise<number> {
  const [row] = await sql<{ n: string }>(
    t,
    `SELECT count(*)::text AS n FROM ${table} WHERE ${where}`,
    params,
  );
  return Number(row.n);
}

/** A snapshot of everything a write could touch, to assert that a failed write changed nothing. */
export async function snapshot(t: TestServer): Promise<string> {
  const tables = [
    'portal_users',
    'accounts',
    'audit_events',
    'mail_outbox',
    'memberships',
    'api_tokens',
  ];
  const parts = await Promise.all(
    tables.map(async (table) =>
      JSON.stringify(await sql(t, `SELECT * FROM ${table} ORDER BY id`)).replace(
        /"last_used_at":(null|"[^"]*"),?/g,
        '',
      ),
    ),
  );
  return parts.join('\n');
}

/** Runs `run` (a refused write and its assertions) and asserts that it changed nothing. */
export async function expectNoChange(t: TestServer, run: () => Promise<void>): Promise<void> {
  const before = await snapshot(t);
  await run();
  expect(await snapshot(t)).toBe(before);
}

export async function me(
  t: TestServer,
  token = 'owner',
): Promise<{ userId: string; tokenId: string; organizationId: string }> {
  const { body } = await call(t, 'GET', '/v1/me', { token });
  return { userId: body.person.id, tokenId: body.token.id, organizationId: body.organization.id };
}

export async function findPortalUser(t: TestServer, email: string, token = 'owner'): Promise<Json> {
  const { body } = await call(t, 'GET', `/v1/portal-users?q=${encodeURIComponent(email)}`, {
    token,
  });
  const found = body.data.find((u: Json) => u.email === email);
  if (found === undefined) throw new Error(`portal user ${email} not found`);
  return found;
}

export async function findAccount(t: TestServer, name: string, token = 'owner'): Promise<Json> {
  const { body } = await call(t, 'GET', `/v1/accounts?q=${encodeURIComponent(name)}`, { token });
  const found = body.data.find((a: Json) => a.name === name);
  if (found === undefined) throw new Error(`account ${name} not found`);
  return found;
}

/** A refusal as the API answers it: `status` and the error envelope (`details` only when given). */
export function apiError(
  status: number,
  code: string,
  message: string,
  details?: unknown,
): ApiResult {
  return {
    status,
    body: { error: { code, message, ...(details === undefined ? {} : { details }) } },
  };
}

/**
 * The answer to a create or change whose `field` another record of the organisation already
 * holds: 409 with `code` (CONFLICT for an external reference, DUPLICATE_ERROR for a natural key)
 * and `message`, the field named in the details. Compare a whole {@link ApiResult} with it.
 */
export function alreadyUsed(
  code: 'CONFLICT' | 'DUPLICATE_ERROR',
  field: string,
  message: string,
): ApiResult {
  return apiError(409, code, message, [{ field, message: 'is already used in this organisation' }]);
}

/** A field failure's sort key, for comparing details in any order. */
const detailKey = (d: { field: string; message: string }): string => `${d.field}\n${d.message}`;

/**
 * Asserts a 422 VALIDATION_ERROR whose details are exactly `details`: in that order, or in any
 * order (`'any order'`, for the failures one request collects from several fields).
 */
export function expectInvalid(
  r: ApiResult,
  details: { field: string; message: string }[],
  order: 'in order' | 'any order' = 'in order',
): void {
  const sorted = (ds: Json): Json =>
    order === 'in order' || !Array.isArray(ds)
      ? ds
      : [...ds].sort((a, b) => byText(detailKey(a), detailKey(b)));
  expect({
    status: r.status,
    code: r.body?.error?.code,
    details: sorted(r.body?.error?.details),
  }).toEqual({ status: 422, code: 'VALIDATION_ERROR', details: sorted(details) });
}

/**
 * Deletes `${collection}/${id}` as the owner and asserts the documented answer (`dto`-shaped
 * `{id, deleted: true}`) and that the record is gone (GET is 404).
 */
export async function expectDeleted(
  t: TestServer,
  collection: string,
  id: string,
  dto: string,
): Promise<void> {
  const r = await call(t, 'DELETE', `${collection}/${id}`);
  expect(r.status).toBe(200);
  expect(matchesSchema(dto, r.body)).toEqual([]);
  expect(r.body).toEqual({ id, deleted: true });
  expect((await call(t, 'GET', `${collection}/${id}`)).status).toBe(404);
}

/**
 * Walks `path` `limit` rows a page and asserts that it met every row of Acme's `table` once, in
 * as many pages as that takes; returns the rows.
 */
export async function expectWalksAcme(
  t: TestServer,
  path: string,
  table: string,
  limit: number,
): Promise<Json[]> {
  const total = await countRows(
    t,
    table,
    `organization_id = (SELECT id FROM organizations WHERE slug = 'acme')`,
  );
  const { rows, pages } = await walk(t, path, limit);
  expect(rows).toHaveLength(total);
  expect(new Set(rows.map((r) => r.id)).size).toBe(total);
  expect(pages).toBe(Math.ceil(total / limit));
  return rows;
}

/** The audit events about `resourceId` (of `resourceType`, when given), newest first. */
export async function auditFor(
  t: TestServer,
  resourceId: string,
  resourceType?: string,
): Promise<Json[]> {
  const query = new URLSearchParams({
    ...(resourceType === undefined ? {} : { resource_type: resourceType }),
    resource_id: resourceId,
  });
  return (await call(t, 'GET', `/v1/audit-events?${query.toString()}`)).body.data;
}

/** Walks every page of a list endpoint, returning all rows and the number of pages. */
export async function walk(
  t: TestServer,
  path: string,
  limit: number,
  token = 'owner',
): Promise<{ rows: Json[]; pages: number }> {
  const rows: Json[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const url = `${path}${sep}limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const { status, body } = await call(t, 'GET', url, { token });
    if (status !== 200) throw new Error(`${url} → ${status} ${JSON.stringify(body)}`);
    rows.push(...body.data);
    const next: string | null = body.next_cursor;
    cursor = next;
    pages++;
  } while (cursor !== null && pages < 1000);
  return { rows, pages };
}

let validators: Map<string, ValidateFunction> | undefined;

/**
 * Validates a response body against the JSON Schema generated from its response DTO class by
 * class-validator-jsonschema: the same generator the MCP layer uses for output schemas.
 */
export function matchesSchema(dtoName: string, body: unknown): string[] {
  if (validators === undefined) {
    const schemas = validationMetadatasToSchemas({
      classValidatorMetadataStorage: getMetadataStorage(),
      refPointerPrefix: '#/$defs/',
    });
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
    ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
    ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
    validators = new Map();
    for (const [name, schema] of Object.entries(schemas)) {
      validators.set(name, ajv.compile({ ...schema, $defs: schemas }));
    }
  }
  const validate = validators.get(dtoName);
  if (validate === undefined) throw new Error(`no schema for ${dtoName}`);
  return validate(body)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

/** The invitation secret in the newest outbox message to `to`. */
export async function invitationTokenFor(t: TestServer, to: string): Promise<string> {
  const { body } = await call(t, 'GET', `/v1/mail/outbox?to=${encodeURIComponent(to)}&limit=1`);
  const text: string | undefined = body.data[0]?.text;
  const match = text?.match(/\/v1\/portal-invitations\/([A-Za-z0-9_-]{43})\/accept/);
  if (!match) throw new Error(`no invitation mail to ${to}`);
  return match[1];
}
