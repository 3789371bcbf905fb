import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { validateInput, type DtoClass, type InputLocation } from './validate-input.js';

const PRIMITIVES: ReadonlySet<unknown> = new Set([String, Number, Boolean, Array, Object]);

const LOCATION: Partial<Record<ArgumentMetadata['type'], InputLocation>> = {
  body: 'body',
  query: 'query',
  param: 'path',
};

/**
 * The REST input pipe: every `@Body()`, `@Query()` and `@Param()` typed with a DTO class is
 * validated by {@link validateInput} (422 `VALIDATION_ERROR` with per-field details; unknown
 * fields refused). Apply with `@UsePipes(ApiValidationPipe)` on a controller, or register it as
 * a global `APP_PIPE`. Arguments typed with primitives pass through untouched.
 */
@Injectable()
export class ApiValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const location = LOCATION[metadata.type];
    const metatype = metadata.metatype;
    if (location === undefined || metatype === undefined || PRIMITIVES.has(metatype)) return value;
    if (metadata.data !== undefined) return value; // a single named value, e.g. @Param('id')
    return validateInput(metatype as DtoClass, value, location);
  }
}
