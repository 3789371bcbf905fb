import { applyDecorators, type Type } from '@nestjs/common';
import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

type JsonSchema = Record<string, unknown>;

interface FieldOptions {
  description?: string;
  nullable?: boolean;
  example?: unknown;
}

/**
 * Declares a response field once for both schema generators: OpenAPI (`@ApiProperty`) and
 * class-validator-jsonschema (an exact `@JSONSchema`), so MCP output schemas and `/v1/openapi.json`
 * describe the same shape. Every response field is always present (nullable ones hold `null`), so
 * every field is required in the generated schemas.
 */
function field(schema: JsonSchema, api: JsonSchema, options: FieldOptions): PropertyDecorator {
  return applyDecorators(declared, fieldSchemas(schema, api, options));
}

/** The response fields each DTO class declares itself, in declaration order. */
const DECLARED_FIELDS = new WeakMap<object, string[]>();

/** Files the decorated property as one of its class's response fields. */
function declared(target: object, property: string | symbol): void {
  if (typeof property !== 'string') throw new TypeError('A response field is named by a string');
  const cls: unknown = target.constructor;
  if (typeof cls !== 'function') throw new TypeError('A response field belongs to a class');
  const fields = DECLARED_FIELDS.get(cls) ?? [];
  fields.push(property);
  DECLARED_FIELDS.set(cls, fields);
}

/**
 * The fields a response DTO class declares with `Out.*`, inherited ones first, in the order its
 * JSON shows them.
 */
export function declaredResponseFields(cls: object): readonly string[] {
  const own = DECLARED_FIELDS.get(cls) ?? [];
  const parent: unknown = Object.getPrototypeOf(cls);
  if (typeof parent !== 'function' || parent === Function.prototype) return own;
  return [...declaredResponseFields(parent), ...own];
}

function fieldSchemas(
  schema: JsonSchema,
  api: JsonSchema,
  options: FieldOptions,
): PropertyDecorator {
  const exact: JsonSchema = options.nullable ? orNull(schema) : schema;
  const described =
    options.description === undefined ? exact : { ...exact, description: options.description };
  const openapi = {
    ...api,
    required: true,
    nullable: options.nullable ?? false,
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.example === undefined ? {} : { example: options.example }),
  } as ApiPropertyOptions;
  return applyDecorators(
    ApiProperty(openapi),
    Allow(),
    JSONSchema(() => described),
  );
}

/**
 * `schema` or `null`, as `anyOf` branches with one `type` each: the spelling every schema dialect
 * clients map tool schemas onto can read (a `type` list is legal JSON Schema but less portable).
 */
export function orNull(schema: JsonSchema): JsonSchema {
  const { description, default: fallback, ...rest } = schema;
  const nullable: JsonSchema = { anyOf: [rest, { type: 'null' }] };
  if (description !== undefined) nullable.description = description;
  if (fallback !== undefined) nullable.default = fallback;
  return nullable;
}

export const Out = {
  string: (o: FieldOptions = {}) => field({ type: 'string' }, { type: String }, o),
  uuid: (o: FieldOptions = {}) =>
    field({ type: 'string', format: 'uuid' }, { type: String, format: 'uuid' }, o),
  email: (o: FieldOptions = {}) =>
    field({ type: 'string', format: 'email' }, { type: String, format: 'email' }, o),
  dateTime: (o: FieldOptions = {}) =>
    field({ type: 'string', format: 'date-time' }, { type: String, format: 'date-time' }, o),
  integer: (o: FieldOptions = {}) => field({ type: 'integer' }, { type: 'integer' }, o),
  boolean: (o: FieldOptions = {}) => field({ type: 'boolean' }, { type: Boolean }, o),
  constant: (value: string | boolean, o: FieldOptions = {}) =>
    field(
      { type: typeof value, const: value },
      { type: typeof value === 'boolean' ? Boolean : String, enum: [value] },
      o,
    ),
  enum: (values: readonly string[], o: FieldOptions = {}) =>
    field({ type: 'string', enum: [...values] }, { type: String, enum: [...values] }, o),
  enumArray: (values: readonly string[], o: FieldOptions = {}) =>
    field(
      { type: 'array', items: { type: 'string', enum: [...values] } },
      { type: String, enum: [...values], isArray: true },
      o,
    ),
  stringArray: (o: FieldOptions = {}) =>
    field({ type: 'array', items: { type: 'string' } }, { type: String, isArray: true }, o),
  /** A free-form JSON object (e.g. an audit event's `changes`). */
  object: (o: FieldOptions = {}) =>
    field(
      { type: 'object', additionalProperties: true },
      { type: Object, additionalProperties: true },
      o,
    ),
  /** A page's `next_cursor`: where the next page starts, `null` on the last page. */
  nextCursor: () =>
    field(
      { type: 'string' },
      { type: String },
      { nullable: true, description: 'Cursor of the next page; `null` on the last page.' },
    ),
  /** A nested response DTO (`$ref` to its schema), or an array of them. */
  nested: (cls: () => Type, o: FieldOptions & { isArray?: boolean } = {}) =>
    applyDecorators(
      declared,
      ApiProperty({
        // A lazy type as @nestjs/swagger reads one: a function *named* `type` (it tells a lazy
        // type from a class by that name), which an arrow function written as this property is.
        // `cls` itself is anonymous, so passed as is it was taken for a class named `` and every
        // nested field became `$ref: '#/components/schemas/'`.
        type: () => cls(),
        isArray: o.isArray ?? false,
        required: true,
        nullable: o.nullable ?? false,
        ...(o.description === undefined ? {} : { description: o.description }),
      }),
      Allow(),
      JSONSchema((_source: unknown, options: { refPointerPrefix: string }) => {
        const ref = { $ref: `${options.refPointerPrefix}${cls().name}` };
        const one: JsonSchema = o.nullable ? { anyOf: [ref, { type: 'null' }] } : ref;
        const schema: JsonSchema = o.isArray ? { type: 'array', items: one } : one;
        return o.description === undefined ? schema : { ...schema, description: o.description };
      }),
    ),
};
