import { isJsonObject } from '@app/common';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { AccessPolicy } from '@app/access';
import {
  authorizationEnvelopeOf,
  authorizationRefused,
  requiredParam,
  envelopeOf,
  assertAllowed,
} from './mcp-refusals.js';
import {
  INVALID_PARAMS,
  isFirstRevision,
  McpError,
  type McpCacheHint,
  type McpHandlerOutcome,
  type McpRequestContext,
} from '@app/mcp-transport';
import { callerOf, type McpCallExtra } from './mcp-call-extra.js';
import { RestDispatcher } from './rest-dispatcher.js';
import {
  matchUriTemplate,
  MCP_EXTENSIONS,
  type ExtensionResource,
  type McpExtension,
} from './mcp-extension.js';
import { pathParamsOf, ToolCatalog, type CompiledTool } from './tool-catalog.js';

/**
 * Every list here is one page: a cursor we never issued is invalid (-32602, pagination utility).
 */
export function assertFirstPage(params: Record<string, unknown>): void {
  if (params.cursor !== undefined) {
    throw new McpError(
      INVALID_PARAMS,
      'Invalid params: unknown cursor (this list has a single page)',
      {
        cursor: params.cursor,
      },
    );
  }
}

const MIME_TYPE = 'application/json';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * The catalogue's lists (tools, prompts, resources and templates) change only with a deployment
 * and are the same for every token: any cache may keep them for five minutes.
 */
export const STATIC_LIST_CACHE: McpCacheHint = { ttlMs: 300_000, cacheScope: 'public' };
/** A record is the caller's and may change at any time. */
const READ_CACHE: McpCacheHint = { ttlMs: 0, cacheScope: 'private' };

export const ORGANIZATION_URI = 'platform://organization';

interface ResourceTemplateSpec {
  uriTemplate: string;
  /** The URI up to `{id}`. */
  prefix: string;
  name: string;
  title: string;
  description: string;
  /** The read tool whose endpoint, scope and permission the resource reuses. */
  tool: string;
}

/** Records readable by id: the same endpoint and authorization as their `get_*` tool. */
const TEMPLATES: readonly ResourceTemplateSpec[] = [
  {
    uriTemplate: 'platform://portal-users/{id}',
    prefix: 'platform://portal-users/',
    name: 'portal-user',
    title: 'Portal user',
    description:
      'One portal user of your organisation as JSON (the same record get_portal_user returns). {id} is the portal user id (uuid).',
    tool: 'get_portal_user',
  },
  {
    uriTemplate: 'platform://accounts/{id}',
    prefix: 'platform://accounts/',
    name: 'account',
    title: 'Customer account',
    description:
      'One customer account of your organisation as JSON (the same record get_account returns). {id} is the account id (uuid).',
    tool: 'get_account',
  },
];

const ORGANIZATION = {
  uri: ORGANIZATION_URI,
  name: 'organization',
  title: 'Your organisation',
  description:
    'The organisation this connection acts in: its id, slug and name, the person who authorized the client with their role and permissions, and the token scopes.',
  tool: 'get_current_context',
} as const;

type ResolvedTarget = {
  tool: CompiledTool;
  /** The path parameters of the tool's GET endpoint. */
  params: Record<string, string>;
  shape: (body: Record<string, unknown>) => unknown;
};

/**
 * MCP resources over the REST API: `platform://organization` and the record templates
 * `platform://portal-users/{id}`, `platform://accounts/{id}`. A read runs the four authorization
 * checks first (refusal: -31403), then the record's REST endpoint in-process as the caller, so
 * 404 and cross-tenant rules are the API's. Unknown, malformed, missing or foreign → resource not
 * found (-32002 on 2025 revisions, -32602 on 2026-07-28, `data.uri` in both).
 */
@Injectable()
export class ResourcesHandler {
  private readonly templates: readonly (ResourceTemplateSpec & { compiled: CompiledTool })[];
  private readonly organizationTool: CompiledTool;
  private readonly listing: {
    v1: readonly Record<string, unknown>[];
    v2: readonly Record<string, unknown>[];
  };
  private readonly templateListing: {
    v1: readonly Record<string, unknown>[];
    v2: readonly Record<string, unknown>[];
  };

  private readonly added: readonly ExtensionResource[];

  constructor(
    catalog: ToolCatalog,
    private readonly policy: AccessPolicy,
    private readonly dispatcher: RestDispatcher,
    @Optional() @Inject(MCP_EXTENSIONS) extensions?: readonly McpExtension[],
  ) {
    this.added = (extensions ?? []).flatMap((e) => e.resources ?? []);
    for (const r of this.added) {
      if ((r.uri === undefined) === (r.uriTemplate === undefined))
        throw new Error(`ResourcesHandler: ${r.name} needs exactly one of uri and uriTemplate`);
    }
    this.templates = TEMPLATES.map((t) => ({ ...t, compiled: readTool(catalog, t.tool, ['id']) }));
    this.organizationTool = readTool(catalog, ORGANIZATION.tool, []);
    const { tool: _tool, ...organization } = ORGANIZATION;
    this.listing = byRevision([
      { ...organization, mimeType: MIME_TYPE },
      ...this.added.filter((r) => r.uri !== undefined).map(describeAdded),
    ]);
    this.templateListing = byRevision([
      ...TEMPLATES.map(({ uriTemplate, name, title, description }) => ({
        uriTemplate,
        name,
        title,
        description,
        mimeType: MIME_TYPE,
      })),
      ...this.added.filter((r) => r.uriTemplate !== undefined).map(describeAdded),
    ]);
  }

  async list(params: Record<string, unknown>, ctx: McpRequestContext): Promise<McpHandlerOutcome> {
    assertFirstPage(params);
    return {
      kind: 'complete',
      result: { resources: pick(this.listing, ctx) },
      cache: STATIC_LIST_CACHE,
    };
  }

  async listTemplates(
    params: Record<string, unknown>,
    ctx: McpRequestContext,
  ): Promise<McpHandlerOutcome> {
    assertFirstPage(params);
    return {
      kind: 'complete',
      result: { resourceTemplates: pick(this.templateListing, ctx) },
      cache: STATIC_LIST_CACHE,
    };
  }

  async read(
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<McpHandlerOutcome> {
    const uri = requiredParam(params, 'uri', 'uri');
    for (const r of this.added) {
      const vars =
        r.uri === undefined
          ? matchUriTemplate(r.uriTemplate ?? '', uri)
          : r.uri === uri
            ? {}
            : undefined;
      if (vars === undefined) continue;
      assertAllowed(this.policy, extra.principal, r.access);
      return { kind: 'complete', result: { contents: await r.read(uri, vars) }, cache: READ_CACHE };
    }
    const target = this.resolve(uri);
    if (target === undefined) throw McpError.resourceNotFound(uri);

    assertAllowed(this.policy, extra.principal, target.tool.access);

    const response = await this.dispatcher.dispatch(
      callerOf(ctx, extra),
      target.tool.def.endpoint,
      {
        params: target.params,
      },
    );
    if (response.status === 200 && isJsonObject(response.body)) {
      const contents = [
        { uri, mimeType: MIME_TYPE, text: JSON.stringify(target.shape(response.body)) },
      ];
      return { kind: 'complete', result: { contents }, cache: READ_CACHE };
    }
    const refused = authorizationEnvelopeOf(response.body);
    if (refused !== undefined) throw authorizationRefused(refused);
    if (response.status >= 400 && response.status < 500 && envelopeOf(response.body) !== undefined)
      throw McpError.resourceNotFound(uri);
    throw new Error(
      `resources/read: GET ${target.tool.def.endpoint.path} answered ${response.status}`,
    );
  }

  /** The variables of a resource template (`{id}` → `id`), or undefined for an unknown template. */
  variablesOf(uriTemplate: string): readonly string[] | undefined {
    const known =
      this.templates.some((t) => t.uriTemplate === uriTemplate) ||
      this.added.some((r) => r.uriTemplate === uriTemplate);
    return known ? [...uriTemplate.matchAll(/\{(\w+)\}/g)].map((m) => m[1]) : undefined;
  }

  private resolve(uri: string): ResolvedTarget | undefined {
    if (uri === ORGANIZATION_URI) {
      return {
        tool: this.organizationTool,
        params: {},
        shape: organizationProfile,
      };
    }
    for (const t of this.templates) {
      if (!uri.startsWith(t.prefix)) continue;
      const id = uri.slice(t.prefix.length);
      // The id is a uuid: nothing else can name a record (no decoding, no extra path segments).
      if (!UUID.test(id)) return undefined;
      return {
        tool: t.compiled,
        params: { id: id.toLowerCase() },
        shape: (b) => b,
      };
    }
    return undefined;
  }
}

/** A `resources/list` (or templates) entry for an extension's resource. */
function describeAdded(r: ExtensionResource): Record<string, unknown> {
  return {
    ...(r.uri === undefined ? { uriTemplate: r.uriTemplate } : { uri: r.uri }),
    name: r.name,
    title: r.title,
    description: r.description,
    mimeType: r.mimeType,
  };
}

/** The read tool a resource reuses: it must exist, be a GET, and take exactly these path params. */
function readTool(catalog: ToolCatalog, name: string, pathParams: readonly string[]): CompiledTool {
  const tool = catalog.get(name);
  if (tool === undefined) throw new Error(`ResourcesHandler: tool ${name} is not registered`);
  const { method, path } = tool.def.endpoint;
  if (method !== 'GET' || pathParamsOf(path).join(',') !== pathParams.join(',')) {
    throw new Error(
      `ResourcesHandler: ${name} must be GET with path params [${pathParams.join(', ')}]; it is ${method} ${path}`,
    );
  }
  return tool;
}

/** `GET /v1/me` → the organisation profile: the organisation, who acts in it, and what the token reaches. */
function organizationProfile(me: Record<string, unknown>): unknown {
  const person = isJsonObject(me.person) ? me.person : {};
  const membership = isJsonObject(me.membership) ? me.membership : {};
  const token = isJsonObject(me.token) ? me.token : {};
  return {
    organization: me.organization,
    acting_person: {
      ...person,
      role: membership.role,
      status: membership.status,
      permissions: membership.permissions,
    },
    token: { kind: token.kind, scopes: token.scopes },
  };
}

/** 2025-03-26 had no `title` on resources and templates; later revisions do. */
function byRevision(entries: readonly Record<string, unknown>[]): {
  v1: readonly Record<string, unknown>[];
  v2: readonly Record<string, unknown>[];
} {
  return { v1: entries.map(({ title: _title, ...rest }) => rest), v2: entries };
}

function pick<T>(listing: { v1: T; v2: T }, ctx: McpRequestContext): T {
  return isFirstRevision(ctx.protocolVersion) ? listing.v1 : listing.v2;
}
