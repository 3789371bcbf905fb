import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

/**
 * A required, non-null JSON number response field, for OpenAPI and JSON Schema alike: the one
 * shape `Out` (from `@app/rest-contract`) does not offer yet. Same conventions as `Out.*`.
 */
export const OutNumber = (o: { description?: string } = {}): PropertyDecorator =>
  applyDecorators(
    ApiProperty({
      type: Number,
      required: true,
      nullable: false,
      ...(o.description === undefined ? {} : { description: o.description }),
    }),
    Allow(),
    JSONSchema(() =>
      o.description === undefined
        ? { type: 'number' }
        : { type: 'number', description: o.description },
    ),
  );
