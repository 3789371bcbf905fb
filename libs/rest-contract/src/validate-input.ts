import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { isPrototypeMemberName, textRefusal } from '@app/common';
import { DomainError, type FieldError } from '@app/errors';

/** Where an input came from; names the field when the whole input is the wrong shape. */
export type InputLocation = 'body' | 'query' | 'path';

export type DtoClass<T extends object = object> = new () => T;

const MAX_SUMMARY_ENTRIES = 5;

/** How deep an input may nest (no DTO comes close; a deeper input is an attack or a mistake). */
export const MAX_INPUT_DEPTH = 32;

/** class-validator constraints that check a value's type (as opposed to its range or format). */
const TYPE_CONSTRAINTS: ReadonlySet<string> = new Set([
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
]);

/**
 * Turns a plain input (JSON body, query string, path parameters) into an instance of a
 * class-validator DTO, or throws a `VALIDATION_ERROR` whose `details` name every failing field:
 * `[{"field":"email","message":"must be an email"}]`. Unknown fields are refused
 * (`{"field":"bogus","message":"is not allowed"}`). The REST pipe and any in-process caller use
 * this one function, so the rules and wording are the same everywhere.
 */
export function validateInput<T extends object>(
  metatype: DtoClass<T>,
  value: unknown,
  location: InputLocation,
): T {
  const plain = value === undefined || value === null ? {} : value;
  if (typeof plain !== 'object' || Array.isArray(plain)) {
    throw DomainError.validation(
      [{ field: location, message: 'must be a JSON object' }],
      `Validation failed: ${location} must be a JSON object`,
    );
  }
  const unstorable = unstorableFieldsOf(plain, location);
  if (unstorable.length > 0) throw DomainError.validation(unstorable, summarise(unstorable));
  const instance = plainToInstance(metatype, { ...plain });
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: true },
  });
  if (errors.length > 0) {
    const details = fieldErrorsOf(errors);
    throw DomainError.validation(details, summarise(details));
  }
  return instance;
}

/**
 * What no DTO rule may be asked to look at: U+0000 in any string or key (Postgres text cannot hold
 * it), a lone UTF-16 surrogate (not Unicode text; some validators throw on it), a field named like
 * a member of every object (`constructor`, `__proto__`, `toString`, …: class-transformer takes a
 * nested `constructor` for a type and throws), and nesting deeper
 * than {@link MAX_INPUT_DEPTH} (class-transformer recurses). One walk,
 * without recursion, before the DTO sees the input; the same for REST inputs and tool arguments
 * (which reach the REST endpoint through this function).
 */
export function unstorableFieldsOf(input: object, location: InputLocation): FieldError[] {
  const out: FieldError[] = [];
  const stack: { value: unknown; field: string; depth: number }[] = [
    { value: input, field: '', depth: 0 },
  ];
  while (stack.length > 0 && out.length <= MAX_SUMMARY_ENTRIES) {
    const { value, field, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const why = textRefusal(value);
      if (why !== undefined)
        out.push({ field: field || location, message: `must not contain ${why}` });
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_INPUT_DEPTH) {
      out.push({
        field: field || location,
        message: `is nested too deeply (more than ${MAX_INPUT_DEPTH} levels)`,
      });
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      const path = Array.isArray(value)
        ? `${field}[${key}]`
        : field === ''
          ? key
          : `${field}.${key}`;
      const why = textRefusal(key);
      if (why !== undefined) {
        out.push({
          field: field || location,
          message: `must not contain a field name with ${why}`,
        });
        continue;
      }
      if (!Array.isArray(value) && isPrototypeMemberName(key)) {
        out.push({
          field: path,
          message: 'is not allowed as a field name (every JavaScript object has a member so named)',
        });
        continue;
      }
      stack.push({ value: child, field: path, depth: depth + 1 });
    }
  }
  return out;
}

/** class-validator errors → one `{field, message}` per failing constraint, human wording. */
export function fieldErrorsOf(errors: readonly ValidationError[], prefix = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    const field =
      prefix === ''
        ? e.property
        : /^\d+$/.test(e.property)
          ? `${prefix}[${e.property}]`
          : `${prefix}.${e.property}`;
    const constraints = e.constraints ?? {};
    const keys = Object.keys(constraints);
    if (keys.includes('whitelistValidation')) {
      out.push({ field, message: 'is not allowed' });
    } else if (keys.length > 0 && e.value === undefined) {
      // A missing required field fails every constraint; one entry says what to do.
      out.push({ field, message: 'is required' });
    } else if (keys.length > 0 && e.value === null) {
      out.push({ field, message: 'must not be null' });
    } else {
      // A value of the wrong type fails its range and format checks too; the type is what to fix.
      const typeKeys = keys.filter((k) => TYPE_CONSTRAINTS.has(k));
      for (const key of typeKeys.length > 0 ? typeKeys : keys) {
        out.push({ field, message: humanise(constraints[key] ?? key, e.property) });
      }
    }
    if (e.children !== undefined && e.children.length > 0)
      out.push(...fieldErrorsOf(e.children, field));
  }
  return out;
}

/** `"email must be an email"` → `"must be an email"`; `"each value in scopes must…"` → `"each value must…"`. */
function humanise(message: string, property: string): string {
  if (message.startsWith(`${property} `)) return message.slice(property.length + 1);
  if (message.startsWith(`each value in ${property} `))
    return `each value ${message.slice(`each value in ${property} `.length)}`;
  return message;
}

function summarise(details: readonly FieldError[]): string {
  const shown = details.slice(0, MAX_SUMMARY_ENTRIES).map((d) => `${d.field} ${d.message}`);
  const more =
    details.length > MAX_SUMMARY_ENTRIES
      ? `; and ${details.length - MAX_SUMMARY_ENTRIES} more`
      : '';
  return `Validation failed: ${shown.join('; ')}${more}`;
}
