import { compileErrors, validate } from '@readme/openapi-parser';
import { getMetadataStorage } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolCatalog } from '@app/mcp-tools';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { byText, type Json } from './platform-api.fixtures.js';

describe('/v1/openapi.json documents the REST API from the same DTOs', () => {
  let t: TestServer;
  let doc: Json;
  beforeAll(async () => {
    t = await startTestServer();
    doc = await (await t.request('/v1/openapi.json')).json();
  });
  afterAll(async () => t?.close());

  const ROUTES: Array<[string, string, string, string | null]> = [
    ['get', '/v1/portal-users', 'listPortalUsers', 'PortalUserPageDto'],
    ['post', '/v1/portal-users', 'createPortalUser', 'PortalUserDto'],
    ['get', '/v1/portal-users/{id}', 'getPortalUser', 'PortalUserDto'],
    ['patch', '/v1/portal-users/{id}', 'updatePortalUser', 'PortalUserDto'],
    ['delete', '/v1/portal-users/{id}', 'deletePortalUser', 'DeletedPortalUserDto'],
    ['post', '/v1/portal-users/{id}/invitation', 'resendPortalUserInvitation', 'PortalUserDto'],
    ['post', '/v1/portal-users/{id}/deactivate', 'deactivatePortalUser', 'PortalUserDto'],
    ['post', '/v1/portal-users/{id}/activate', 'activatePortalUser', 'PortalUserDto'],
    [
      'post',
      '/v1/portal-invitations/{token}/accept',
      'acceptPortalInvitation',
      'AcceptedInvitationDto',
    ],
    ['get', '/v1/accounts', 'listAccounts', 'AccountPageDto'],
    ['post', '/v1/accounts', 'createAccount', 'AccountDto'],
    ['get', '/v1/accounts/{id}', 'getAccount', 'AccountDto'],
    ['patch', '/v1/accounts/{id}', 'updateAccount', 'AccountDto'],
    ['delete', '/v1/accounts/{id}', 'deleteAccount', 'DeletedAccountDto'],
    ['get', '/v1/audit-events', 'listAuditEvents', 'AuditEventPageDto'],
    ['get', '/v1/audit-events/export', 'exportAuditEvents', 'AuditEventExportPageDto'],
    ['get', '/v1/history/retention', 'getHistoryRetention', 'HistoryRetentionDto'],
    ['get', '/v1/mail/outbox', 'listMailOutbox', 'OutboxMessagePageDto'],
    ['get', '/v1/members', 'listMembers', 'MemberPageDto'],
    ['patch', '/v1/members/{user_id}', 'updateMember', 'MemberDto'],
    ['get', '/v1/tokens', 'listTokens', 'TokenPageDto'],
    ['post', '/v1/tokens', 'createToken', 'CreatedTokenDto'],
    ['delete', '/v1/tokens/{id}', 'revokeToken', 'TokenDto'],
    ['get', '/v1/me/tokens', 'listMyTokens', 'TokenPageDto'],
    ['delete', '/v1/me/tokens/{id}', 'revokeMyToken', 'TokenDto'],
  ];

  it.each(ROUTES)(
    '%s %s (%s) with its response schema and error envelope',
    (method, path, operationId, response) => {
      const op = doc.paths?.[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.operationId).toBe(operationId);
      const success = op.responses['200'] ?? op.responses['201'];
      expect(JSON.stringify(success)).toContain(`#/components/schemas/${response}`);
      const errors = Object.keys(op.responses).filter((s) => Number(s) >= 400);
      expect(errors.length).toBeGreaterThan(0);
      for (const s of errors) expect(JSON.stringify(op.responses[s])).toContain('ApiErrorEnvelope');
    },
  );

  it('request bodies and query parameters use the snake_case field names of the DTOs', () => {
    const create = doc.components.schemas.CreatePortalUserDto;
    expect(Object.keys(create.properties).sort(byText)).toEqual([
      'account_id',
      'email',
      'external_id',
      'name',
      'send_invitation',
    ]);
    expect(create.required.sort(byText)).toEqual(['email', 'name']);
    const params = doc.paths['/v1/portal-users'].get.parameters
      .map((p: Json) => p.name)
      .sort(byText);
    expect(params).toEqual(['account_id', 'cursor', 'limit', 'q', 'status']);
    expect(Object.keys(doc.components.schemas.PortalUserDto.properties)).toContain(
      'invitation_expires_at',
    );
  });

  it('describes every input field with the same sentence the MCP tool schema carries (one source)', () => {
    const catalog = new ToolCatalog();
    const toolProps = (tool: string): Json => catalog.get(tool)!.inputSchema.properties;
    const create = doc.components.schemas.CreatePortalUserDto.properties;
    for (const [name, schema] of Object.entries<Json>(toolProps('create_portal_user')))
      expect(create[name]?.description, name).toBe(schema.description);
    const query: Json[] = doc.paths['/v1/portal-users'].get.parameters;
    for (const [name, schema] of Object.entries<Json>(toolProps('list_portal_users'))) {
      const param = query.find((p) => p.name === name);
      expect(param?.description, name).toBe(schema.description);
    }
  });

  it('types error details: field-level codes as [{field, message}], others as an object', () => {
    const details = doc.components.schemas.ApiErrorBody.properties.details;
    expect(details.oneOf).toEqual([
      { type: 'array', items: { $ref: '#/components/schemas/ApiFieldError' } },
      { type: 'object', additionalProperties: true },
    ]);
    expect(doc.components.schemas.ApiFieldError.required.sort(byText)).toEqual([
      'field',
      'message',
    ]);
  });

  it('is a valid OpenAPI 3 document, as @readme/openapi-parser judges it', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    // It dereferences what it validates, in place: a copy leaves the other tests the document.
    const result = await validate(structuredClone(doc));
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(result).toMatchObject({ valid: true, warnings: [], specification: 'OpenAPI' });
  });

  it('points every $ref at something the document holds (no `#/components/schemas/`)', () => {
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(0);
    const dangling = refs.filter(({ ref }) => resolve(doc, ref) === undefined);
    expect(dangling).toEqual([]);
  });

  it('refers each nested response field to the schema class-validator-jsonschema names for it', () => {
    // The MCP output schemas' generator, reading the same `Out.nested` fields: an outside judge
    // of which DTO a field holds (e.g. AccountPageDto's `data` items → AccountDto).
    const mcp: Record<string, Json> = validationMetadatasToSchemas({
      classValidatorMetadataStorage: getMetadataStorage(),
      refPointerPrefix: SCHEMAS,
    });
    const nested: string[] = [];
    for (const [name, schema] of Object.entries<Json>(doc.components.schemas)) {
      // The error envelope is no DTO class (its `details` has a test of its own, above).
      if (name.startsWith('ApiError')) continue;
      for (const [field, property] of Object.entries<Json>(schema.properties ?? {})) {
        const openapi = refsIn(property).map(({ ref }) => ref);
        if (openapi.length === 0) continue;
        nested.push(`${name}.${field}`);
        const judged = refsIn(mcp[name]?.properties?.[field] ?? {}).map(({ ref }) => ref);
        expect(openapi, `${name}.${field}`).toEqual(judged);
      }
    }
    expect(nested).toContain('AccountPageDto.data');
    expect(doc.components.schemas.AccountPageDto.properties.data.items).toEqual({
      $ref: `${SCHEMAS}AccountDto`,
    });
  });

  it('describes the bearer tokens as what they are: opaque pat_/oat_ secrets, not JWTs', () => {
    const bearer = doc.components.securitySchemes.bearer;
    expect(bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'opaque' });
    expect(bearer.description).toContain('pat_');
    expect(bearer.description).toContain('oat_');
    expect(JSON.stringify(doc.components.securitySchemes)).not.toContain('JWT');
  });
});

const SCHEMAS = '#/components/schemas/';

/** Every `$ref` under `node`, with the JSON pointer of the object holding it. */
function refsIn(node: Json, at = '#'): Array<{ at: string; ref: string }> {
  if (node === null || typeof node !== 'object') return [];
  return Object.entries<Json>(node).flatMap(([key, value]) =>
    key === '$ref' && typeof value === 'string'
      ? [{ at, ref: value }]
      : refsIn(value, `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`),
  );
}

/** What a local reference (`#/a/b`) points at in `doc`; undefined when nothing is there. */
function resolve(doc: Json, ref: string): Json {
  if (!ref.startsWith('#/')) return undefined;
  let node: Json = doc;
  for (const token of ref.slice(2).split('/')) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}
