import { isJsonObject } from '@app/common';
import { getMetadataStorage } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { DtoClass } from '@app/rest-contract';

export type JsonSchema = Record<string, unknown>;

type GeneratedSchemas = ReturnType<typeof validationMetadatasToSchemas>;

let cache: GeneratedSchemas | undefined;

function allSchemas(): GeneratedSchemas {
  cache ??= validationMetadatasToSchemas({
    classValidatorMetadataStorage: getMetadataStorage(),
    refPointerPrefix: '#/$defs/',
  });
  return cache;
}

/** Inlines `#/$defs/X` references (DTOs are shallow; a nested DTO becomes an inline object). */
function inline(schema: unknown, depth = 0): unknown {
  if (depth > 8) return schema;
  if (Array.isArray(schema)) return schema.map((s) => inline(s, depth + 1));
  if (!isJsonObject(schema)) return schema;
  const ref = schema.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/$defs/')) {
    const target = allSchemas()[ref.slice('#/$defs/'.length)];
    if (target !== undefined) return inline(target, depth + 1);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(v, depth + 1)]));
}

/**
 * The JSON Schema of a DTO, generated from its class-validator decorators: the same metadata the
 * REST endpoint validates with, so the tool's schema and the endpoint's validation cannot drift.
 */
export function schemaOfDto(dto: DtoClass): JsonSchema {
  const schema = allSchemas()[dto.name];
  if (schema === undefined) throw new Error(`No class-validator metadata for ${dto.name}`);
  const inlined = inline(schema);
  // Unreachable: an object schema inlines to an object.
  if (!isJsonObject(inlined)) throw new Error(`The schema of ${dto.name} is not an object`);
  return inlined;
}
