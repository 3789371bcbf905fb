import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { JSONSchema } from 'class-validator-jsonschema';
import { orNull } from './response-property.decorator.js';

type JsonSchema = Record<string, unknown>;

/**
 * What a client (a person reading OpenAPI, or a model reading an MCP tool's `inputSchema`) needs to
 * fill one input field: `description` is one sentence it can act on — what the value is, its
 * format, its default, and how to get a valid one ("an id from list_portal_users").
 */
export type InputPropertyOptions = ApiPropertyOptions & { description: string };

/**
 * The documentation of one input field, declared once for both schema generators: OpenAPI
 * (`@ApiProperty`) and class-validator-jsonschema (the MCP tool's `inputSchema`, whose other
 * keywords come from the class-validator constraints). The `description` and `default` are the same
 * text in `/v1/openapi.json` and in `tools/list`; `nullable: true` (the field accepts `null`, e.g. to
 * clear it) admits `null` in both. Validation stays with the class-validator decorators next to it.
 */
function inputProperty(options: InputPropertyOptions, required: boolean): PropertyDecorator {
  return applyDecorators(
    required ? ApiProperty(options) : ApiPropertyOptional(options),
    // Called with the schema class-validator-jsonschema generated from the constraints.
    JSONSchema((generated) => {
      const base: JsonSchema = { ...generated };
      const schema = options.nullable === true ? orNull(base) : base;
      schema.description = options.description;
      if (options.default !== undefined) schema.default = options.default;
      return schema;
    }),
  );
}

export const Input = {
  /** A field the caller must send. */
  required: (options: InputPropertyOptions): PropertyDecorator => inputProperty(options, true),
  /** A field the caller may leave out. */
  optional: (options: InputPropertyOptions): PropertyDecorator => inputProperty(options, false),
};
