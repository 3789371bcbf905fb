import { Injectable, type ExecutionContext, type OnModuleInit } from '@nestjs/common';
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
  /**
   * Path parameters by name (`:id` → `{ id }`): strings, as a URL carries them; from a tool call,
   * the argument as given (absent: left out), which the path DTO judges like any other input.
   */
  params?: Record<string, unknown>;
  /** Query arguments; turned into what a query string carries (strings, repeated keys as arrays). */
  query?: Record<string, unknown>;
  /** The JSON body. */
  body?: unknown;
  /** The route's requirement, already evaluated for the caller (not evaluated a second time). */
  verified?: AccessRequirement;
}

/** A controller method or class as Nest's reflection sees it. */
type Target = ReturnType<ExecutionContext['getHandler']>;

/** One controller method bound to its contract, with how to build its arguments. */
interface BoundEndpoint {
  contract: EndpointContract;
  instance: object;
  handler: Target;
  /** Per argument position: where its value comes from and the DTO that validates it. */
  args: ReadonlyArray<{ location: InputLocation; dto: DtoClass }>;
  /** What the access guard evaluates on this route (`null`: public). */
  requirement: AccessRequirement | null;
}

/** Nest's route-argument kinds (`@Param()`, `@Query()`, `@Body()`) and where each value comes from. */
const LOCATIONS: ReadonlyMap<number, InputLocation> = new Map([
  [RouteParamtypes.PARAM, 'path'],
  [RouteParamtypes.QUERY, 'query'],
  [RouteParamtypes.BODY, 'body'],
]);
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
      const controller: unknown = wrapper.metatype;
      if (typeof controller !== 'function' || typeof instance !== 'object' || instance === null)
        continue;
      const prototype: object = Object.getPrototypeOf(instance);
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler: unknown = Reflect.get(prototype, name);
        if (typeof handler !== 'function') continue;
        const contract = this.reflector.get<EndpointContract | undefined>(
          ENDPOINT_CONTRACT,
          handler,
        );
        if (contract === undefined) continue;
        const key = keyOf(contract);
        const bound = bind(controller, name, handler, contract);
        if (typeof bound === 'string') {
          this.unbindable.set(key, `${controller.name}.${name}: ${bound}`);
          continue;
        }
        this.endpoints.set(key, {
          contract,
          instance,
          handler,
          args: bound,
          requirement: routeRequirementOf(this.reflector, handler, controller),
        });
      }
    }
  }

  /** Throws, naming why, unless `contract` is an endpoint this process serves and can dispatch to. */
  assertDispatchable(contract: EndpointContract): void {
    this.boundTo(contract);
  }

  private boundTo(contract: EndpointContract): BoundEndpoint {
    const key = keyOf(contract);
    const bound = this.endpoints.get(key);
    if (bound !== undefined) return bound;
    throw new Error(
      `RestDispatcher: cannot dispatch to ${key}: ${this.unbindable.get(key) ?? 'no controller method declares it with @Endpoint'}`,
    );
  }

  async dispatch(
    caller: CallerContext,
    contract: EndpointContract,
    input: RestInput = {},
  ): Promise<RestResponse> {
    const bound = this.boundTo(contract);
    // A context of its own (by default a copy of the MCP request's): the services see this caller
    // and its request id (the audit trail's), and the MCP request's own caller is left as it was.
    return this.cls.run(async () => {
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
        const value: unknown = await Reflect.apply(bound.handler, bound.instance, args);
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
  if (location === 'path') return input.params ?? {};
  if (location === 'query') return toQueryValues(input.query);
  return input.body;
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
  /** `@Param()`, `@Query()` or `@Body()`; undefined for any other kind of argument. */
  location: InputLocation | undefined;
  /** A named value (`@Param('id')`) or argument-level pipes: not a whole DTO. */
  partial: boolean;
}

/** Nest's record of a method's decorated arguments (`ROUTE_ARGS_METADATA`, keys `kind:index`). */
function routeArguments(controller: Target, name: string): RouteArgument[] {
  const recorded: unknown = Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name);
  if (typeof recorded !== 'object' || recorded === null) return [];
  return Object.entries(recorded).map(([key, arg]: [string, unknown]) => {
    const index = isRecord(arg) && typeof arg.index === 'number' ? arg.index : -1;
    const pipes = isRecord(arg) && Array.isArray(arg.pipes) ? arg.pipes.length : 0;
    return {
      index,
      location: LOCATIONS.get(Number(key.split(':')[0])),
      partial: !isRecord(arg) || arg.data !== undefined || pipes > 0,
    };
  });
}

/** The declared parameter types of a method (TypeScript's `design:paramtypes`). */
function parameterTypes(controller: Target, name: string): unknown[] {
  const types: unknown = Reflect.getMetadata('design:paramtypes', controller.prototype, name);
  return Array.isArray(types) ? types : [];
}

/** Metadata lists (guards, pipes, …) declared on the controller and on the method. */
function declared(key: string, controller: Target, handler: Target): unknown[] {
  return [controller, handler].flatMap((target) => {
    const list: unknown = Reflect.getMetadata(key, target);
    return Array.isArray(list) ? list : [];
  });
}

/**
 * How to build a controller method's arguments, or why it cannot be run in-process the way its
 * HTTP route runs.
 */
function bind(
  controller: Target,
  name: string,
  handler: Target,
  contract: EndpointContract,
): Array<{ location: InputLocation; dto: DtoClass }> | string {
  for (const [key, what] of [
    [GUARDS_METADATA, 'route guards'],
    [INTERCEPTORS_METADATA, 'interceptors'],
    [EXCEPTION_FILTERS_METADATA, 'exception filters'],
  ] as const) {
    if (declared(key, controller, handler).length > 0)
      return `it declares ${what}, which an in-process dispatch would not run`;
  }
  const types = parameterTypes(controller, name);
  const pipes = declared(PIPES_METADATA, controller, handler);
  if (pipes.some((p) => p !== ApiValidationPipe) || (types.length > 0 && pipes.length === 0))
    return 'its only pipe must be ApiValidationPipe (@UsePipes(ApiValidationPipe) on the controller)';
  const args: Array<{ location: InputLocation; dto: DtoClass }> = [];
  for (const arg of routeArguments(controller, name)) {
    const dto: unknown = types[arg.index];
    if (arg.location === undefined || arg.partial || !isDtoClass(dto))
      return `argument ${arg.index} is not a whole @Param(), @Query() or @Body() DTO`;
    const expected = contract[CONTRACT_DTO[arg.location]];
    if (dto !== expected)
      return `argument ${arg.index} is validated as ${dto.name} but the contract declares ${expected?.name ?? 'none'} for ${arg.location}`;
    args[arg.index] = { location: arg.location, dto };
  }
  if (args.filter(Boolean).length !== types.length)
    return 'every argument must be a @Param(), @Query() or @Body()';
  return args;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isDtoClass(value: unknown): value is DtoClass {
  return typeof value === 'function';
}
