import { isJsonObject } from '@app/common';
import { readdirSync, readFileSync } from 'node:fs';
import { Ajv, type Options } from 'ajv';
// ajv-formats is CommonJS: its `module.exports` is the plugin, also exported as `default`.
import ajvFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { TOOL_CALL_STATUS_SET } from '@app/metrics';
import { httpStatusOf } from '@app/errors';
import { AUTH_ERROR_CODES } from '@app/rest-contract';
import { compileTools, ToolCatalog } from './tool-catalog.js';
import { errorResult } from './tool-results.js';
import { TOOLS } from './tools.js';

/** The property names of a schema's `properties` (none unless it is an object). */
function keysOf(value: unknown): string[] {
  return typeof value === 'object' && value !== null ? Object.keys(value) : [];
}

/**
 * Ajv as a client validates tool schemas: with the standard formats (`date`, `date-time`, `uuid`,
 * `email`) known, and every warning collected so a test can insist there is none.
 */
function clientAjv(warnings: string[] = []): Ajv {
  const logger: Options['logger'] = {
    log: () => undefined,
    warn: (...args: unknown[]) => warnings.push(args.map(String).join(' ')),
    error: (...args: unknown[]) => warnings.push(args.map(String).join(' ')),
  };
  const ajv = new Ajv({ strict: false, logger });
  ajvFormats.default(ajv);
  return ajv;
}

describe('ToolCatalog', () => {
  const catalog = new ToolCatalog();

  it('lists every tool of the catalogue in a stable order', () => {
    expect(catalog.names()).toEqual([
      'get_current_context',
      'list_portal_users',
      'get_portal_user',
      'create_portal_user',
      'update_portal_user',
      'resend_portal_user_invitation',
      'deactivate_portal_user',
      'activate_portal_user',
      'delete_portal_user',
      'list_accounts',
      'get_account',
      'create_account',
      'update_account',
      'delete_account',
      'list_audit_events',
    ]);
    expect(catalog.list('2026-07-28')).toBe(catalog.list('2025-11-25'));
  });

  it('answers tools/list with one frozen result per revision shape, the same object every time', () => {
    const modern = catalog.listResult('2026-07-28');
    expect(catalog.listResult('2025-06-18')).toBe(modern);
    expect(catalog.listResult('2025-03-26')).not.toBe(modern);
    expect(modern.tools).toBe(catalog.list('2026-07-28'));
    // Frozen all the way down: the transport may render it once and reuse the bytes.
    expect(Object.isFrozen(modern)).toBe(true);
    for (const entry of modern.tools) {
      expect(Object.isFrozen(entry)).toBe(true);
      expect(Object.isFrozen(entry.inputSchema)).toBe(true);
    }
  });

  it('the docs count the tools there are ("N tools" in README.md and docs/)', () => {
    const root = new URL('../../../', import.meta.url);
    const files = [
      'README.md',
      ...readdirSync(new URL('docs/', root))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const counts = files.flatMap((file) =>
      [...readFileSync(new URL(file, root), 'utf8').matchAll(/\b(\d+) (?:MCP )?tools\b/g)].map(
        (m) => [file, Number(m[1])] as const,
      ),
    );
    expect(counts.length).toBeGreaterThan(0);
    for (const [file, n] of counts) expect(n, file).toBe(catalog.names().length);
  });

  it('input schemas are closed objects generated from the endpoint DTOs, path ids required', () => {
    for (const name of catalog.names()) {
      const t = catalog.get(name)!;
      expect(t.inputSchema.type).toBe('object');
      expect(t.inputSchema.additionalProperties).toBe(false);
      for (const p of t.pathParams) expect(t.inputSchema.required).toContain(p);
    }
    const create = catalog.get('create_portal_user')!.inputSchema;
    expect(keysOf(create.properties)).toEqual(
      expect.arrayContaining(['email', 'name', 'external_id', 'account_id', 'send_invitation']),
    );
    expect(create.required).toEqual(expect.arrayContaining(['email', 'name']));
    expect(create.required).not.toContain('external_id');
    expect(keysOf(catalog.get('list_audit_events')!.inputSchema.properties)).toEqual(
      expect.arrayContaining(['actor', 'action', 'channel', 'since', 'until', 'q', 'cursor']),
    );
    const list = catalog.get('list_portal_users')!.inputSchema;
    expect(keysOf(list.properties)).toEqual(
      expect.arrayContaining(['status', 'account_id', 'q', 'limit', 'cursor']),
    );
  });

  it('output schemas are valid JSON Schema objects (root type object, as 2025-06-18+ requires)', () => {
    const warnings: string[] = [];
    const ajv = clientAjv(warnings);
    for (const name of catalog.names()) {
      const t = catalog.get(name)!;
      expect(() => ajv.compile(t.inputSchema), name).not.toThrow();
      if (t.outputSchema === undefined) continue;
      expect(t.outputSchema.type, name).toBe('object');
      expect(() => ajv.compile(t.outputSchema!), name).not.toThrow();
    }
    // Every `format` the schemas use is a standard one a client's validator knows.
    expect(warnings).toEqual([]);
  });

  it('each result shape is declared once: a tool without an output schema names the tool whose result it shares', () => {
    const declared = catalog.names().filter((n) => catalog.get(n)!.outputSchema !== undefined);
    expect(declared).toEqual(
      expect.arrayContaining(['get_current_context', 'list_portal_users', 'get_portal_user']),
    );
    for (const name of declared) expect(catalog.get(name)!.def.resultLike, name).toBeUndefined();
    const sharing = catalog.names().filter((n) => !declared.includes(n));
    expect(sharing.length).toBeGreaterThan(0);
    for (const name of sharing) {
      const t = catalog.get(name)!;
      const like = catalog.get(t.def.resultLike!)!;
      expect(like.outputSchema, name).toBeDefined();
      expect(like.def.endpoint.response, name).toBe(t.def.endpoint.response);
      expect(t.def.description, name).toContain(like.def.name);
    }
  });

  it('refuses a tool whose resultLike names a tool with another result, or is not in its description', () => {
    const [getUser, getAccount] = ['get_portal_user', 'get_account'].map(
      (n) => catalog.get(n)!.def,
    );
    const update = catalog.get('update_portal_user')!.def;
    expect(() =>
      compileTools([getUser, getAccount, { ...update, resultLike: 'get_account' }]),
    ).toThrow(/does not return what get_account returns/);
    expect(() =>
      compileTools([getUser, { ...update, description: 'Change a portal user.' }]),
    ).toThrow(/must name get_portal_user/);
    expect(() => compileTools([update])).toThrow(/declares no output schema/);
  });
  it('annotations are truthful: only the deletes are destructive, reads are read-only', () => {
    const listed = catalog.list('2026-07-28');
    for (const [i, name] of catalog.names().entries()) {
      expect(listed[i], name).toMatchObject({
        name,
        annotations: {
          destructiveHint: name.startsWith('delete_'),
          readOnlyHint: /^(get|list)_/.test(name),
        },
      });
    }
    for (const name of catalog.names().filter((n) => n.startsWith('delete_')))
      expect(catalog.get(name)!.def.confirmation, name).toBeDefined();
  });

  it('shapes tools/list per revision: 2025-03-26 has no title or outputSchema', () => {
    const old = catalog.list('2025-03-26')[0];
    expect(old).not.toHaveProperty('title');
    expect(old).not.toHaveProperty('outputSchema');
    const current = catalog.list('2025-06-18')[0];
    expect(current).toHaveProperty('title');
    expect(current).toHaveProperty('outputSchema');
  });

  it('tool names are header-safe (SEP-986 charset, ≤ 128)', () => {
    for (const name of catalog.names()) expect(name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
  });
});

describe('output schemas describe successful results only', () => {
  it('a record validates; the error envelope does not (failures carry it as text, not structuredContent)', () => {
    const ajv = clientAjv();
    const validate = ajv.compile(new ToolCatalog().get('get_account')!.outputSchema!);
    const account = {
      id: '0b9f3f8e-4a4c-4f43-9e51-5f0c8d3b1a11',
      name: 'Acme',
      external_id: null,
      tax_id: null,
      created_at: '2026-12-03T10:00:00.000Z',
      updated_at: '2026-12-03T10:00:00.000Z',
    };
    expect(validate(account), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...account, tax_id: 7 })).toBe(false);
    expect(validate({ error: { code: 'NOT_FOUND', message: 'Account not found' } })).toBe(false);
    const failure = errorResult({ error: { code: 'NOT_FOUND', message: 'Account not found' } });
    expect(failure).not.toHaveProperty('structuredContent');
    expect(JSON.parse(failure.content[0].text)).toEqual({
      error: { code: 'NOT_FOUND', message: 'Account not found' },
    });
  });

  it('carry no field descriptions (the OpenAPI document has them)', () => {
    for (const entry of new ToolCatalog().list('2026-07-28')) {
      const text = JSON.stringify(entry.outputSchema ?? {});
      expect(text, String(entry.name)).not.toMatch(/"description"/);
    }
  });

  it('give every schema node a single `type` (a nullable field is an anyOf), the portable spelling', () => {
    const typeArrays: string[] = [];
    const visit = (node: unknown, path: string): void => {
      if (Array.isArray(node)) node.forEach((n, i) => visit(n, `${path}[${i}]`));
      else if (isJsonObject(node)) {
        if (Array.isArray(node.type)) typeArrays.push(path);
        for (const [k, v] of Object.entries(node)) visit(v, `${path}.${k}`);
      }
    };
    for (const entry of new ToolCatalog().list('2026-07-28')) visit(entry, String(entry.name));
    expect(typeArrays).toEqual([]);
  });
});

/** Every `properties` entry of an input schema, as [name, schema]. */
function inputProperties(schema: unknown): [string, Record<string, unknown>][] {
  if (!isJsonObject(schema) || !isJsonObject(schema.properties)) return [];
  return Object.entries(schema.properties).map(([name, p]) => [name, isJsonObject(p) ? p : {}]);
}

/** Wording that belongs to the error model, which the server instructions state once. */
const ERROR_MODEL = /isError|envelope|\{"error"|error\.code|correct the call/i;

describe('the catalogue, for the model', () => {
  const catalog = new ToolCatalog();

  it('every input property has one sentence a model can act on', () => {
    let count = 0;
    for (const name of catalog.names()) {
      for (const [prop, schema] of inputProperties(catalog.get(name)!.inputSchema)) {
        count += 1;
        const description = schema.description;
        expect(typeof description, `${name}.${prop}`).toBe('string');
        const text = String(description);
        expect(text.length, `${name}.${prop}`).toBeGreaterThanOrEqual(12);
        expect(text.length, `${name}.${prop}`).toBeLessThanOrEqual(160);
        expect(text, `${name}.${prop}`).toMatch(/^[A-Z].*[.)]$/s);
      }
    }
    // The 15 tools declare 41 input properties (ids, filters, fields, limit and cursor).
    expect(count).toBeGreaterThanOrEqual(41);
  });

  it('ids say where a valid value comes from; limit states its default in words and schema', () => {
    const id = inputProperties(catalog.get('get_portal_user')!.inputSchema).find(
      ([p]) => p === 'id',
    )![1];
    expect(id.description).toMatch(/list_portal_users/);
    const account = inputProperties(catalog.get('create_portal_user')!.inputSchema).find(
      ([p]) => p === 'account_id',
    )![1];
    expect(account.description).toMatch(/list_accounts/);
    const limit = inputProperties(catalog.get('list_accounts')!.inputSchema).find(
      ([p]) => p === 'limit',
    )![1];
    expect(limit).toMatchObject({ default: 20, minimum: 1, maximum: 100 });
    expect(limit.description).toMatch(/20/);
  });

  it('a field that accepts null to clear it says so in its type', () => {
    const props = Object.fromEntries(inputProperties(catalog.get('update_account')!.inputSchema));
    expect(props.tax_id?.anyOf).toEqual([
      expect.objectContaining({ type: 'string' }),
      { type: 'null' },
    ]);
    expect(props.name?.type).toBe('string');
  });

  it('no tool or property description repeats the error model (the instructions say it once)', () => {
    for (const entry of catalog.list('2026-07-28')) {
      expect(entry.description, String(entry.name)).not.toMatch(ERROR_MODEL);
      for (const [prop, schema] of inputProperties(entry.inputSchema))
        expect(schema.description, `${String(entry.name)}.${prop}`).not.toMatch(ERROR_MODEL);
    }
  });

  // The whole listing's bound, on the wire of every revision, is checked in
  // libs/mcp-server/src/mcp-endpoint.factory.spec.ts (it includes each era's envelope).
  it('what the model reads (name, title, description, inputSchema, annotations) is under 14 KB', () => {
    for (const version of ['2025-03-26', '2025-11-25', '2026-07-28']) {
      const modelFacing = Buffer.byteLength(
        JSON.stringify({
          tools: catalog.list(version).map(({ outputSchema: _o, ...entry }) => entry),
        }),
      );
      expect(modelFacing, version).toBeLessThan(14 * 1024);
    }
  });

  it('counts every status a catalogue tool can end with as itself in mcp_tool_calls_total, never as unknown', () => {
    const statusSet: ReadonlySet<string> = TOOL_CALL_STATUS_SET;
    for (const tool of TOOLS) {
      const statuses = [
        'ok',
        ...tool.endpoint.errors,
        // The access checks (authentication itself, every 401, is the transport's, before any
        // tool runs).
        ...AUTH_ERROR_CODES.filter((code) => httpStatusOf(code) !== 401),
        // Every endpoint answers it while its database cannot be reached in time.
        'SERVICE_UNAVAILABLE',
        ...(tool.confirmation === undefined
          ? []
          : [
              'input_required',
              'confirmation_required',
              'confirmation_replayed',
              'confirmation_unavailable',
              'USER_DECLINED',
            ]),
      ];
      const uncounted = statuses.filter((status) => !statusSet.has(status));
      expect(uncounted, tool.name).toEqual([]);
    }
  });
});
