import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

/**
 * A required JSON number response field (non-null unless `nullable`), for OpenAPI and JSON Schema
 * alike: the one shape `Out` (from `@app/rest-contract`) does not offer yet. Same conventions as
 * `Out.*`.
 */
export const OutNumber = (
  o: { description?: string; nullable?: boolean } = {},
): PropertyDecorator => {
  const nullable = o.nullable === true;
  const described = o.description === undefined ? {} : { description: o.description };
  return applyDecorators(
    ApiProperty({ type: Number, required: true, nullable, ...described }),
    Allow(),
    JSONSchema(() => ({ type: nullable ? ['number', 'null'] : 'number', ...described })),
  );
};
