import { isJsonObject } from '@app/common';
import { Injectable } from '@nestjs/common';
import { AccessPolicy } from '@app/access';
import {
  INVALID_PARAMS,
  McpError,
  type McpHandlerOutcome,
  type McpRequestContext,
} from '@app/mcp-transport';
import { callerOf, type McpCallExtra } from './mcp-call-extra.js';
import { PromptsHandler } from './prompts.handler.js';
import {
  assertReadableParam,
  authorizationEnvelopeOf,
  authorizationRefused,
  assertAllowed,
} from './mcp-refusals.js';
import { ResourcesHandler } from './resources.handler.js';
import { RestDispatcher } from './rest-dispatcher.js';
import { ToolCatalog, type CompiledTool } from './tool-catalog.js';

/** The protocol's cap on `completion.values`. */
const MAX_VALUES = 100;
/** Longer prefixes cannot match anything the list endpoints accept as `q`. */
const MAX_PREFIX = 200;

/** Where suggestions for one argument come from: a list tool whose records carry `id` and `name`. */
interface CompletionSource {
  /** The list tool (its endpoint, scope and permission). */
  list: string;
  /** Record fields a typed prefix is matched against (case-insensitive); the value offered is `id`. */
  matchOn: readonly string[];
}

const PORTAL_USER_IDS: CompletionSource = { list: 'list_portal_users', matchOn: ['name', 'email'] };
const ACCOUNT_IDS: CompletionSource = { list: 'list_accounts', matchOn: ['name'] };

/**
 * Arguments that can be completed: the `{id}` of the record templates and the `account_id` of
 * onboard_portal_user. Every other argument of a known prompt or template completes to nothing
 * (free text: a name, an e-mail, a date).
 */
const SOURCES: readonly { ref: Ref; argument: string; source: CompletionSource }[] = [
  {
    ref: { type: 'ref/resource', uri: 'platform://portal-users/{id}' },
    argument: 'id',
    source: PORTAL_USER_IDS,
  },
  {
    ref: { type: 'ref/resource', uri: 'platform://accounts/{id}' },
    argument: 'id',
    source: ACCOUNT_IDS,
  },
  {
    ref: { type: 'ref/prompt', name: 'onboard_portal_user' },
    argument: 'account_id',
    source: ACCOUNT_IDS,
  },
];

type Ref = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

interface CompletionRequest {
  ref: Ref;
  argument: string;
  value: string;
}

function keyOf(ref: Ref, argument: string): string {
  return ref.type === 'ref/prompt'
    ? `prompt ${ref.name} ${argument}`
    : `resource ${ref.uri} ${argument}`;
}

/**
 * `completion/complete`: suggests record ids for an argument from what the caller types (a name
 * prefix; an e-mail prefix for portal users). The suggestions come from the list endpoint of the
 * record, run in-process as the caller, so they are the caller's organisation's records only and
 * the endpoint's scope and permission apply (refusal: -31403, as for resources and prompts).
 */
@Injectable()
export class CompletionsHandler {
  /** `keyOf(ref, argument)` → the list tool to search. */
  private readonly sources: ReadonlyMap<string, { tool: CompiledTool; matchOn: readonly string[] }>;

  constructor(
    catalog: ToolCatalog,
    private readonly prompts: PromptsHandler,
    private readonly resources: ResourcesHandler,
    private readonly policy: AccessPolicy,
    private readonly dispatcher: RestDispatcher,
  ) {
    const sources = new Map<string, { tool: CompiledTool; matchOn: readonly string[] }>();
    for (const { ref, argument, source } of SOURCES) {
      if (!this.declared(ref)?.includes(argument))
        throw new Error(`CompletionsHandler: ${keyOf(ref, argument)} is not a declared argument`);
      const tool = catalog.get(source.list);
      if (tool === undefined || tool.def.endpoint.method !== 'GET')
        throw new Error(`CompletionsHandler: ${source.list} is not a registered GET tool`);
      sources.set(keyOf(ref, argument), { tool, matchOn: source.matchOn });
    }
    this.sources = sources;
  }

  /** The arguments a prompt or resource template declares (the handlers' own declarations). */
  private declared(ref: Ref): readonly string[] | undefined {
    return ref.type === 'ref/prompt'
      ? this.prompts.argumentsOf(ref.name)
      : this.resources.variablesOf(ref.uri);
  }

  async complete(
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<McpHandlerOutcome> {
    const request = readRequest(params);
    const declared = this.declared(request.ref);
    if (declared === undefined) {
      const what =
        request.ref.type === 'ref/prompt'
          ? `prompt: ${request.ref.name}`
          : `resource template: ${request.ref.uri}`;
      throw new McpError(INVALID_PARAMS, `Unknown ${what}`, { ref: request.ref });
    }
    if (!declared.includes(request.argument)) {
      throw new McpError(INVALID_PARAMS, `Unknown argument "${request.argument}"`, {
        argument: request.argument,
        declared,
      });
    }
    if (request.ref.type === 'ref/prompt') {
      const own = this.prompts.completeExtension(request.ref.name, request.argument, request.value);
      if (own !== undefined) return completion(own.slice(0, MAX_VALUES), own.length > MAX_VALUES);
    }
    const source = this.sources.get(keyOf(request.ref, request.argument));
    if (source === undefined || request.value.length > MAX_PREFIX) return completion([], false);

    const { tool } = source;
    assertAllowed(this.policy, extra.principal, tool.access);

    const prefix = request.value.trim();
    const response = await this.dispatcher.dispatch(callerOf(ctx, extra), tool.def.endpoint, {
      query: { limit: MAX_VALUES, ...(prefix === '' ? {} : { q: prefix }) },
    });
    if (response.status !== 200) {
      const refused = authorizationEnvelopeOf(response.body);
      if (refused !== undefined) throw authorizationRefused(refused);
      throw new Error(
        `completion/complete: GET ${tool.def.endpoint.path} answered ${response.status}`,
      );
    }
    const page = isJsonObject(response.body) ? response.body : {};
    const rows = Array.isArray(page.data) ? page.data.filter(isJsonObject) : [];
    const wanted = prefix.toLowerCase();
    const values = rows
      .filter((row) =>
        source.matchOn.some((field) => {
          const text = row[field];
          return typeof text === 'string' && text.toLowerCase().startsWith(wanted);
        }),
      )
      .map((row) => row.id)
      .filter((id): id is string => typeof id === 'string');
    return completion(values, typeof page.next_cursor === 'string');
  }
}

function completion(values: readonly string[], hasMore: boolean): McpHandlerOutcome {
  return {
    kind: 'complete',
    result: { completion: { values, total: values.length, hasMore } },
  };
}

/** `{ref: {type, name|uri}, argument: {name, value}}`, or -32602 naming what is wrong. */
function readRequest(params: Record<string, unknown>): CompletionRequest {
  const { ref, argument } = params;
  if (!isJsonObject(ref) || !isJsonObject(argument))
    throw new McpError(INVALID_PARAMS, 'Invalid params: ref and argument are required');
  const { name, value } = argument;
  if (typeof name !== 'string' || typeof value !== 'string')
    throw new McpError(INVALID_PARAMS, 'Invalid params: argument needs a string name and value');
  assertReadableParam('argument.name', name);
  assertReadableParam('argument.value', value);
  if (ref.type === 'ref/prompt' && typeof ref.name === 'string')
    return { ref: { type: 'ref/prompt', name: ref.name }, argument: name, value };
  if (ref.type === 'ref/resource' && typeof ref.uri === 'string')
    return { ref: { type: 'ref/resource', uri: ref.uri }, argument: name, value };
  throw new McpError(
    INVALID_PARAMS,
    'Invalid params: ref must be {"type":"ref/prompt","name"} or {"type":"ref/resource","uri"}',
  );
}
