import { Injectable, type OnModuleInit, type Type } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { CLS_ID, ClsService } from 'nestjs-cls';
import { AccessPolicy, routeRequirementOf, sameRequirement } from '@app/access';
import type { AccessRequirement } from '@app/access-vocabulary';
import { isDatabaseUnavailable } from '@app/database';
import { mapRestException } from '@app/errors';
import { RequestContext, type CallerContext } from '@app/identity';
import {
  ApiValidationPipe,
  ENDPOINT_CONTRACT,
  validateInput,
  type DtoClass,
  type EndpointContract,
  type InputLocation,
} from '@app/rest-contract';

export interface RestResponse {
  status: number;
  /** The JSON value of the body; `undefined` when the endpoint returned nothing. */
  body: unknown;
  /** The body as JSON text (`JSON.stringify` of `body`, exactly what HTTP would carry), when there is one. */
  text?: string;
}

/** What a tool call (or resource read, completion, confirmation lookup) sends to an endpoint. */
export interface RestInput {
  /** Path parameters by name (`:id` → `{ id }`), as the URL would carry them: strings. */
  params?: Record<string, string>;
  /** Query arguments; turned into what a query string carries (strings, repeated keys as arrays). */
  query?: Record<string, unknown>;
  /** The JSON body. */
  body?: unknown;
  /** The route's requirement, already evaluated for the caller (not evaluated a second time). */
  verified?: AccessRequirement;
}

/** One controller method bound to its contract, with how to build its arguments. */
interface BoundEndpoint {
  contract: EndpointContract;
  instance: object;
  handler: (...args: unknown[]) => unknown;
  /** Per argument position: where its value comes from and the DTO that validates it. */
  args: ReadonlyArray<{ location: InputLocation; dto: DtoClass }>;
  /** What the access guard evaluates on this route (`null`: public). */
  requirement: AccessRequirement | null;
}

const LOCATIONS: Partial<Record<RouteParamtypes, InputLocation>> = {
  [RouteParamtypes.PARAM]: 'path',
  [RouteParamtypes.QUERY]: 'query',
  [RouteParamtypes.BODY]: 'body',
};
const CONTRACT_DTO: Record<InputLocation, 'params' | 'query' | 'body'> = {
  path: 'params',
  query: 'query',
  body: 'body',
};

/**
 * Runs a REST endpoint's own handler in-process for an MCP call, with exactly what its HTTP route
 * applies to it: the access guard's evaluation (skipped only for the requirement the caller was
 * just verified against), the endpoint's input DTOs through `validateInput` (the REST pipe's one
 * function), the handler and its service (business rules, audit trail, with the caller and the
 * `mcp` channel in the request context), and the exception filter's mapping to status and error
 * envelope. Authentication and both budgets were applied to the MCP request itself.
 *
 * No second HTTP request is made (ADR 0008). At start-up every `@Endpoint` method is bound to its
 * contract, and one that uses anything the dispatch would not reproduce (route guards,
 * interceptors or filters, a pipe other than the REST validation pipe, an argument that is not a
 * whole `@Param()`, `@Query()` or `@Body()` DTO, a DTO other than its contract's) is refused with a
 * message, so the two paths cannot drift.
 */
@Injectable()
export class RestDispatcher implements OnModuleInit {
  private readonly endpoints = new Map<string, BoundEndpoint>();
  private readonly unbindable = new Map<string, string>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly cls: ClsService,
    private readonly context: RequestContext,
    private readonly policy: AccessPolicy,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getControllers()) {
      const instance: unknown = wrapper.instance;
      const controller = wrapper.metatype as Type | null;
      if (controller === null || typeof instance !== 'object' || instance === null) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler !== 'function') continue;
        const contract = this.reflector.get<EndpointContract | undefined>(
          ENDPOINT_CONTRACT,
          handler,
        );
        if (contract === undefined) continue;
        const key = keyOf(contract);
        const problem = bindingProblem(controller, name, handler, contract);
        if (problem !== undefined) {
          this.unbindable.set(key, `${controller.name}.${name}: ${problem}`);
          continue;
        }
        this.endpoints.set(key, {
          contract,
          instance,
          handler: handler as (...args: unknown[]) => unknown,
          args: argumentsOf(controller, name),
          requirement: routeRequirementOf(this.reflector, handler as Type, controller),
        });
      }
    }
  }

  /** Throws, naming why, unless `contract` is an endpoint this process serves and can dispatch to. */
  assertDispatchable(contract: EndpointContract): void {
    const key = keyOf(contract);
    if (this.endpoints.has(key)) return;
    throw new Error(
      `RestDispatcher: cannot dispatch to ${key}: ${this.unbindable.get(key) ?? 'no controller method declares it with @Endpoint'}`,
    );
  }

  async dispatch(
    caller: CallerContext,
    contract: EndpointContract,
    input: RestInput = {},
  ): Promise<RestResponse> {
    const endpoint = this.endpoints.get(keyOf(contract));
    if (endpoint === undefined) this.assertDispatchable(contract);
    const bound = endpoint as BoundEndpoint;
    // A context of its own (a copy of the MCP request's): the services see this caller and its
    // request id (the audit trail's), and the MCP request's own caller is left as it was.
    return this.cls.run({ ifNested: 'inherit' }, async () => {
      this.cls.set(CLS_ID, caller.requestId);
      this.context.setCaller(caller);
      try {
        // The route's guard, then its pipes, then the handler: the order HTTP runs them in.
        const { requirement } = bound;
        if (
          requirement !== null &&
          (input.verified === undefined || !sameRequirement(input.verified, requirement))
        )
          this.policy.assert(caller.principal, requirement);
        const args = bound.args.map(({ location, dto }) =>
          validateInput(dto, valueAt(location, input), location),
        );
        const value = await bound.handler.apply(bound.instance, args);
        if (value === undefined || value === null)
          return { status: bound.contract.status, body: undefined };
        const text = JSON.stringify(value);
        return { status: bound.contract.status, body: JSON.parse(text) as unknown, text };
      } catch (err) {
        const { status, envelope } = mapRestException(err, caller.requestId, {
          unavailable: isDatabaseUnavailable,
        });
        return { status, body: JSON.parse(JSON.stringify(envelope)) as unknown };
      }
    });
  }
}

function keyOf(contract: EndpointContract): string {
  return `${contract.method} ${contract.path}`;
}

function valueAt(location: InputLocation, input: RestInput): unknown {
  switch (location) {
    case 'path':
      return input.params ?? {};
    case 'query':
      return toQueryValues(input.query);
    case 'body':
      return input.body;
  }
}

/**
 * Tool arguments as a parsed query string carries them: strings; an array repeats the key (one
 * element reads back as a plain string, none as no key); null and undefined are left out; an
 * object as its JSON text.
 */
function toQueryValues(query: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, string | string[]> = {};
  if (query === undefined) return out;
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) {
      const values = v.map((x) => String(x));
      if (values.length === 1) out[k] = values[0];
      else if (values.length > 1) out[k] = values;
      continue;
    }
    out[k] =
      typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
        ? String(v)
        : JSON.stringify(v);
  }
  return out;
}

interface RouteArgument {
  index: number;
  data?: unknown;
  pipes?: unknown[];
}

function routeArguments(controller: Type, name: string): Array<[RouteParamtypes, RouteArgument]> {
  const metadata =
    (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) as
      Record<string, RouteArgument> | undefined) ?? {};
  return Object.entries(metadata).map(([key, arg]) => [
    Number(key.split(':')[0]) as RouteParamtypes,
    arg,
  ]);
}

function argumentsOf(
  controller: Type,
  name: string,
): Array<{ location: InputLocation; dto: DtoClass }> {
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, name) ??
    []) as DtoClass[];
  const args: Array<{ location: InputLocation; dto: DtoClass }> = [];
  for (const [type, arg] of routeArguments(controller, name)) {
    args[arg.index] = { location: LOCATIONS[type] as InputLocation, dto: types[arg.index] };
  }
  return args;
}

/** Why a controller method cannot be run in-process the way its HTTP route runs, or undefined. */
function bindingProblem(
  controller: Type,
  name: string,
  handler: object,
  contract: EndpointContract,
): string | undefined {
  for (const [key, what] of [
    [GUARDS_METADATA, 'route guards'],
    [INTERCEPTORS_METADATA, 'interceptors'],
    [EXCEPTION_FILTERS_METADATA, 'exception filters'],
  ] as const) {
    const own = [
      ...((Reflect.getMetadata(key, controller) as unknown[] | undefined) ?? []),
      ...((Reflect.getMetadata(key, handler) as unknown[] | undefined) ?? []),
    ];
    if (own.length > 0) return `it declares ${what}, which an in-process dispatch would not run`;
  }
  const pipes = [
    ...((Reflect.getMetadata(PIPES_METADATA, controller) as unknown[] | undefined) ?? []),
    ...((Reflect.getMetadata(PIPES_METADATA, handler) as unknown[] | undefined) ?? []),
  ];
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, name) ??
    []) as unknown[];
  if (pipes.some((p) => p !== ApiValidationPipe) || (types.length > 0 && pipes.length === 0))
    return 'its only pipe must be ApiValidationPipe (@UsePipes(ApiValidationPipe) on the controller)';
  const seen = new Set<number>();
  for (const [type, arg] of routeArguments(controller, name)) {
    const location = LOCATIONS[type];
    if (location === undefined || arg.data !== undefined || (arg.pipes ?? []).length > 0)
      return `argument ${arg.index} is not a whole @Param(), @Query() or @Body() DTO`;
    const declared = contract[CONTRACT_DTO[location]];
    if (types[arg.index] !== declared)
      return `argument ${arg.index} is validated as ${nameOf(types[arg.index])} but the contract declares ${nameOf(declared)} for ${location}`;
    seen.add(arg.index);
  }
  if (seen.size !== types.length) return 'every argument must be a @Param(), @Query() or @Body()';
  return undefined;
}

function nameOf(type: unknown): string {
  return typeof type === 'function' ? type.name : String(type);
}
