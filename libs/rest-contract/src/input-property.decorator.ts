import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { OptionalNotNull, Trim } from './input-decorators.js';
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
function inputProperty(
  options: InputPropertyOptions,
  required: boolean,
  /** Leave the generated `pattern` out (a rule the endpoint checks but the schema need not carry). */
  omitPattern = false,
): PropertyDecorator {
  return applyDecorators(
    required ? ApiProperty(options) : ApiPropertyOptional(options),
    // Called with the schema class-validator-jsonschema generated from the constraints.
    JSONSchema((generated) => {
      const base: JsonSchema = { ...generated };
      if (omitPattern) delete base.pattern;
      const schema = options.nullable === true ? orNull(base) : base;
      schema.description = options.description;
      if (options.default !== undefined) schema.default = options.default;
      return schema;
    }),
  );
}

export const Input = {
  /** A field the caller must send (its validation decorators stand next to it). */
  required: (options: InputPropertyOptions): PropertyDecorator => inputProperty(options, true),
  /** A field the caller may leave out (its validation decorators stand next to it). */
  optional: (options: InputPropertyOptions): PropertyDecorator => inputProperty(options, false),
  /** A free-text field the caller must send, documented and validated (see {@link textInput}). */
  requiredText: (options: TextInputOptions): PropertyDecorator => textInput(options, true),
  /** A free-text field the caller may leave out, documented and validated. */
  optionalText: (options: TextInputOptions): PropertyDecorator => textInput(options, false),
};

/** Printable text: no control character (U+0000–U+001F, U+007F–U+009F). */
const NO_CONTROL_CHARACTERS = /^[^\p{Cc}]*$/u;

/** A free-text field: its documentation and its maximum length (required: every text field has one). */
export type TextInputOptions = InputPropertyOptions & {
  maxLength: number;
  /** A stricter shape than "printable text" (the pattern must itself exclude control characters). */
  shape?: { pattern: RegExp; message: string };
};

/**
 * One free-text input field, every rule in one place: trimmed, a string, not empty, at most
 * `maxLength` characters, no control characters (or the stricter `shape`). Optional fields may be
 * left out; `nullable: true` also accepts `null` ("clear it"), otherwise `null` is refused. The
 * control-character rule is not written into the JSON Schema (the tool catalogue stays lean; the
 * endpoint's answer names the field); a `shape` is.
 */
function textInput(options: TextInputOptions, required: boolean): PropertyDecorator {
  const { shape, ...documentation } = options;
  const presence = required ? [] : [options.nullable === true ? IsOptional() : OptionalNotNull()];
  return applyDecorators(
    inputProperty(documentation, required, shape === undefined),
    ...presence,
    Trim(),
    IsString(),
    MinLength(1, { message: 'must not be empty' }),
    MaxLength(options.maxLength),
    shape === undefined
      ? Matches(NO_CONTROL_CHARACTERS, { message: 'must not contain control characters' })
      : Matches(shape.pattern, { message: shape.message }),
  );
}
