import { Transform } from 'class-transformer';
import { isRFC3339, ValidateBy, type ValidationOptions } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

export const TIMESTAMP_MESSAGE = 'must be an RFC 3339 date-time, e.g. 2026-01-31T09:00:00Z';

const DATE_PART = /^(\d{4})-(\d{2})-(\d{2})[Tt ]/;

/**
 * The one parser for instants a client sends (time filters, expiries, cursors): an RFC 3339
 * date-time with a time zone (`2026-01-31T09:00:00Z`, `2026-01-31T09:00:00.5+01:00`) on a day that
 * exists, within years 1–9999. Anything else (a bare year, a week date, an hour without minutes, a
 * comma fraction, 30 February, a leap second) is `undefined`, never something the database might
 * refuse later.
 */
export function parseTimestamp(value: string): Date | undefined {
  if (!isRFC3339(value)) return undefined;
  const parts = DATE_PART.exec(value);
  if (parts === null) return undefined;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const calendar = new Date(0);
  calendar.setUTCFullYear(year, month - 1, day);
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return undefined;
  const instant = new Date(value);
  if (Number.isNaN(instant.getTime())) return undefined;
  const utcYear = instant.getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999 ? instant : undefined;
}

/**
 * A timestamp input: validated with {@link parseTimestamp} (else `VALIDATION_ERROR` naming the
 * field) and handed on in one canonical form, `2026-01-31T08:00:00.500Z`, so every repository and
 * the database see UTC with a `Z`, whatever offset the client wrote.
 */
export const Timestamp = (options?: ValidationOptions): PropertyDecorator => {
  const transform = Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? (parseTimestamp(value)?.toISOString() ?? value) : value,
  );
  const validate = ValidateBy(
    {
      name: 'isTimestamp',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && parseTimestamp(value) !== undefined,
        defaultMessage: () => TIMESTAMP_MESSAGE,
      },
    },
    options,
  );
  // In generated JSON Schemas (tool input schemas): an RFC 3339 string, not the property's
  // declared TypeScript type (which for `string | null` is `Object`).
  const schema = JSONSchema((source) => {
    const rest: Record<string, unknown> = { ...source };
    delete rest.$ref;
    return { ...rest, type: 'string', format: 'date-time' };
  });
  return (target: object, property: string | symbol) => {
    transform(target, property);
    validate(target, property);
    if (typeof property === 'string') schema(target, property);
  };
};
