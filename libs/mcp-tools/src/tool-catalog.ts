import { isJsonObject } from '@app/common';
import { requirementOf, type AccessRequirement } from '@app/access-vocabulary';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { isFirstRevision, paramHeadersOf, type ParamHeader } from '@app/mcp-transport';
import type { DtoClass } from '@app/rest-contract';
import { schemaOfDto, type JsonSchema } from './json-schema.factory.js';
import { MCP_EXTENSIONS, type ExtensionTool, type McpExtension } from './mcp-extension.js';
import type { ToolDefinition } from './tool-definition.js';
import { TOOLS } from './tools.js';

export interface CompiledTool {
  def: ToolDefinition;
  /** The endpoint's access requirement: a tool needs exactly what its REST route needs. */
  access: AccessRequirement;
  /** Every argument the tool declares; anything else is refused with -32602. */
  argumentNames: ReadonlySet<string>;
  /** `:name` path parameters of the endpoint, in order. */
  pathParams: readonly string[];
  inputSchema: JsonSchema;
  /**
   * Absent when the tool returns the same record as the tool its definition names in `resultLike`:
   * each result shape is declared once per listing.
   */
  outputSchema?: JsonSchema;
}

/**
 * The output schema of a response DTO as `tools/list` carries it: the success shape only (it
 * describes the `structuredContent` of a successful result; a failed call answers `isError` with
 * the error envelope as text and no `structuredContent`), without the field descriptions the
 * OpenAPI document already gives. A nullable field stays an `anyOf` of single-`type` branches: a
 * `type` array is valid JSON Schema but not portable to clients that map tool schemas onto a
 * single-`type` dialect (the Inspector's `--strict` check reports it) (docs/adr/0005).
 */
export function outputSchemaOf(dto: DtoClass): JsonSchema {
  const compacted = compactOutputSchema(schemaOfDto(dto));
  if (!isJsonObject(compacted)) throw new Error(`The schema of ${dto.name} is not an object`);
  return compacted;
}

function compactOutputSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compactOutputSchema);
  if (!isJsonObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key !== 'description') out[key] = compactOutputSchema(value);
  }
  return out;
}

/** `:id` → `id`, in path order. */
export function pathParamsOf(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);
}

/**
 * The path parameters of a call, taken from its arguments as given. An absent one is left out (not
 * replaced by a placeholder), so the endpoint's path DTO answers `{"field":"id","message":"is
 * required"}` like any other missing required argument; a present one, whatever its type, is the
 * DTO's to judge.
 */
export function pathValuesOf(
  pathParams: readonly string[],
  args: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const p of pathParams) if (args[p] !== undefined) values[p] = args[p];
  return values;
}

/**
 * Compiles a tool: its input schema merges the endpoint's path-parameter DTO and its query or
 * body DTO (`additionalProperties: false`); its output schema is the response DTO's.
 */
export function compileTool(def: ToolDefinition): CompiledTool {
  const { endpoint } = def;
  const pathParams = pathParamsOf(endpoint.path);
  const parts = [endpoint.params, endpoint.query, endpoint.body]
    .filter((d) => d !== undefined)
    .map(schemaOfDto);
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const part of parts) {
    if (isJsonObject(part.properties)) Object.assign(properties, part.properties);
    if (Array.isArray(part.required))
      for (const r of part.required)
        if (typeof r === 'string' && !required.includes(r)) required.push(r);
  }
  for (const p of pathParams) {
    if (properties[p] === undefined)
      throw new Error(`${def.name}: path parameter ${p} has no DTO property`);
    if (!required.includes(p)) required.unshift(p);
  }
  const inputSchema: JsonSchema = {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
  if (endpoint.access.kind === 'public')
    throw new Error(`${def.name}: a tool cannot dispatch to a public endpoint`);
  return {
    def,
    access: requirementOf(endpoint.access),
    argumentNames: new Set(Object.keys(properties)),
    pathParams,
    inputSchema,
    ...(def.resultLike === undefined ? { outputSchema: outputSchemaOf(endpoint.response) } : {}),
  };
}

/**
 * The tools, compiled once at startup, and the `tools/list` payload per revision shape. Order is
 * the order of {@link TOOLS}: stable, and the same for every token (call-time checks say what a
 * token lacks).
 */
@Injectable()
export class ToolCatalog {
  private readonly tools: ReadonlyMap<string, CompiledTool>;
  /** 2025-03-26 had no `title` or `outputSchema` on tools. */
  private readonly listingV1: readonly Record<string, unknown>[];
  private readonly listingV2: readonly Record<string, unknown>[];
  /** The whole `tools/list` result per revision shape, deep-frozen: the transport serialises each once. */
  private readonly resultV1: Readonly<{ tools: readonly Record<string, unknown>[] }>;
  private readonly resultV2: Readonly<{ tools: readonly Record<string, unknown>[] }>;

  private readonly extensionTools: ReadonlyMap<string, CompiledExtensionTool>;
  /** Every tool's `x-mcp-header` arguments (checked at startup: a bad one fails the boot). */
  private readonly paramHeadersByTool: ReadonlyMap<string, readonly ParamHeader[]>;

  constructor(@Optional() @Inject(MCP_EXTENSIONS) extensions?: readonly McpExtension[]) {
    this.tools = compileTools(TOOLS);
    const added = new Map<string, CompiledExtensionTool>();
    for (const tool of (extensions ?? []).flatMap((e) => e.tools ?? [])) {
      if (this.tools.has(tool.name) || added.has(tool.name))
        throw new Error(`ToolCatalog: tool ${tool.name} is registered twice`);
      if (tool.inputSchema.type !== 'object')
        throw new Error(`ToolCatalog: ${tool.name}'s inputSchema must have root type "object"`);
      const properties = isJsonObject(tool.inputSchema.properties)
        ? Object.keys(tool.inputSchema.properties)
        : [];
      added.set(tool.name, { ...tool, argumentNames: new Set(properties) });
    }
    this.extensionTools = added;
    this.paramHeadersByTool = new Map([
      ...[...this.tools.values()].map(
        (t) => [t.def.name, paramHeadersOf(t.def.name, t.inputSchema)] as const,
      ),
      ...[...added.values()].map((t) => [t.name, paramHeadersOf(t.name, t.inputSchema)] as const),
    ]);
    this.listingV1 = deepFreeze([
      ...[...this.tools.values()].map((t) => describe(t, false)),
      ...[...added.values()].map((t) => describeExtension(t, false)),
    ]);
    this.listingV2 = deepFreeze([
      ...[...this.tools.values()].map((t) => describe(t, true)),
      ...[...added.values()].map((t) => describeExtension(t, true)),
    ]);
    this.resultV1 = Object.freeze({ tools: this.listingV1 });
    this.resultV2 = Object.freeze({ tools: this.listingV2 });
  }

  /** The `x-mcp-header` arguments of a tool (2026-07-28 `Mcp-Param-*`); undefined: no such tool. */
  paramHeaders(name: string): readonly ParamHeader[] | undefined {
    return this.paramHeadersByTool.get(name);
  }

  /** A tool an extension module added (not a REST endpoint), by name. */
  extension(name: string): CompiledExtensionTool | undefined {
    return this.extensionTools.get(name);
  }

  get(name: string): CompiledTool | undefined {
    return this.tools.get(name);
  }

  names(): readonly string[] {
    return [...this.tools.keys()];
  }

  list(protocolVersion: string): readonly Record<string, unknown>[] {
    return isFirstRevision(protocolVersion) ? this.listingV1 : this.listingV2;
  }

  /**
   * The `tools/list` result for a revision: the same frozen object for every caller (every tool is
   * listed for everyone) until the catalogue changes with a deployment, so the transport renders
   * its JSON once per era and reuses it.
   */
  listResult(protocolVersion: string): Readonly<{ tools: readonly Record<string, unknown>[] }> {
    return isFirstRevision(protocolVersion) ? this.resultV1 : this.resultV2;
  }
}

/** Compiles every tool, refusing a `resultLike` that does not hold (see {@link assertResultLike}). */
export function compileTools(tools: readonly ToolDefinition[]): ReadonlyMap<string, CompiledTool> {
  const compiled = new Map(tools.map((def) => [def.name, compileTool(def)]));
  for (const { def } of compiled.values()) assertResultLike(def, compiled);
  return compiled;
}

/**
 * A tool that declares `resultLike` returns exactly the record of the named tool (same response
 * DTO), which declares the output schema, and its description says so: a model reading the
 * listing learns the shape from there.
 */
function assertResultLike(def: ToolDefinition, tools: ReadonlyMap<string, CompiledTool>): void {
  if (def.resultLike === undefined) return;
  const like = tools.get(def.resultLike);
  if (like === undefined || like.outputSchema === undefined)
    throw new Error(
      `${def.name}: resultLike names ${def.resultLike}, which declares no output schema`,
    );
  if (like.def.endpoint.response !== def.endpoint.response)
    throw new Error(`${def.name}: its endpoint does not return what ${def.resultLike} returns`);
  if (!def.description.includes(def.resultLike))
    throw new Error(
      `${def.name}: the description must name ${def.resultLike}, whose result it shares`,
    );
}

export interface CompiledExtensionTool extends ExtensionTool {
  argumentNames: ReadonlySet<string>;
}

function describeExtension(t: ExtensionTool, withLaterFields: boolean): Record<string, unknown> {
  const entry: Record<string, unknown> = { name: t.name };
  if (withLaterFields) entry.title = t.title;
  entry.description = t.description;
  entry.inputSchema = t.inputSchema;
  if (withLaterFields) {
    const { title: _title, ...hints } = t.annotations;
    entry.annotations = hints;
  } else {
    entry.annotations = t.annotations;
  }
  return entry;
}

/**
 * One `tools/list` entry. From 2025-06-18 on the display name is the tool's own `title`, so
 * `annotations.title` (the only place 2025-03-26 had for it) is not sent twice.
 */
function describe(t: CompiledTool, withLaterFields: boolean): Record<string, unknown> {
  const { def } = t;
  const entry: Record<string, unknown> = { name: def.name };
  if (withLaterFields) entry.title = def.annotations.title;
  entry.description = def.description;
  entry.inputSchema = t.inputSchema;
  if (withLaterFields && t.outputSchema !== undefined) entry.outputSchema = t.outputSchema;
  if (withLaterFields) {
    const { title: _title, ...hints } = def.annotations;
    entry.annotations = hints;
  } else {
    entry.annotations = def.annotations;
  }
  return entry;
}

/** Freezes `value` and everything reachable from it (the listing is never changed once built). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
