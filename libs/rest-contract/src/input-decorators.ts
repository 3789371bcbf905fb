import { Transform } from 'class-transformer';
import { ValidateIf } from 'class-validator';

/** Trims a string input (other types pass through, for the type validators to refuse). */
export const Trim = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/**
 * An optional field that may be left out but not set to `null` (e.g. `name` in a PATCH). Use
 * `@IsOptional()` instead when `null` is meaningful ("clear it"). Both mark the field as not
 * required in generated JSON Schemas.
 */
export const OptionalNotNull = (): PropertyDecorator =>
  ValidateIf((_object: object, value: unknown) => value !== undefined);
