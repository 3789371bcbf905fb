import { isJsonObject } from '@app/common';
import { requirementOf, type AccessRequirement } from '@app/access-vocabulary';
import { Injectable } from '@nestjs/common';
import { schemaOfDto, type JsonSchema } from './json-schema.factory.js';
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
  outputSchema: JsonSchema;
}

/** One entry of `details` for the codes with field-level details (VALIDATION_ERROR, DUPLICATE_ERROR, CONFLICT). */
const FIELD_ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { field: { type: 'string' }, message: { type: 'string' } },
  required: ['field', 'message'],
};

/**
 * The API error envelope. A tool's `structuredContent` carries it when the call fails (`isError`),
 * so the declared output schema admits it next to the success shape: clients that validate
 * structured content against the schema even for errors (the v1 TypeScript SDK does) then accept
 * the envelope instead of hiding the error from the model. How to read it is said once, in the
 * server instructions, not in every tool.
 */
export const ERROR_ENVELOPE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        // Field-level codes: [{"field","message"}]; other codes: an object of facts.
        details: { anyOf: [{ type: 'array', items: FIELD_ERROR_SCHEMA }, { type: 'object' }] },
      },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
};

/** `:id` → `id`, in path order. */
export function pathParamsOf(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);
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
    outputSchema: {
      type: 'object',
      anyOf: [schemaOfDto(endpoint.response), ERROR_ENVELOPE_SCHEMA],
    },
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

  constructor() {
    this.tools = new Map(TOOLS.map((def) => [def.name, compileTool(def)]));
    this.listingV1 = [...this.tools.values()].map((t) => describe(t, false));
    this.listingV2 = [...this.tools.values()].map((t) => describe(t, true));
  }

  get(name: string): CompiledTool | undefined {
    return this.tools.get(name);
  }

  names(): readonly string[] {
    return [...this.tools.keys()];
  }

  list(protocolVersion: string): readonly Record<string, unknown>[] {
    return protocolVersion === '2025-03-26' ? this.listingV1 : this.listingV2;
  }
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
  if (withLaterFields) entry.outputSchema = t.outputSchema;
  if (withLaterFields) {
    const { title: _title, ...hints } = def.annotations;
    entry.annotations = hints;
  } else {
    entry.annotations = def.annotations;
  }
  return entry;
}
