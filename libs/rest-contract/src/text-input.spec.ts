import { describe, expect, it } from 'vitest';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import { DomainError } from '@app/errors';
import { Input } from './input-property.decorator.js';
import { validateInput } from './validate-input.js';

class Body {
  @Input.requiredText({ maxLength: 5, description: 'A name.' })
  name: string;

  @Input.optionalText({ maxLength: 5, description: 'A PATCH field: leave out, never null.' })
  label?: string;

  @Input.optionalText({
    type: String,
    nullable: true,
    maxLength: 5,
    description: 'null clears it.',
  })
  external_id?: string | null;

  @Input.optionalText({
    maxLength: 5,
    description: 'Digits only.',
    shape: { pattern: /^\d+$/, message: 'must be digits' },
  })
  code?: string;
}

function detailsOf(value: unknown): unknown {
  try {
    validateInput(Body, value, 'body');
  } catch (err) {
    return err instanceof DomainError ? err.details : err;
  }
  return undefined;
}

describe('Input.requiredText / Input.optionalText', () => {
  it('trims, and accepts printable text up to the maximum', () => {
    const body = validateInput(Body, { name: '  Ana  ', external_id: null, code: '12' }, 'body');
    expect(body).toMatchObject({ name: 'Ana', external_id: null, code: '12' });
  });

  it.each([
    [{ name: '' }, 'name', 'must not be empty'],
    [{ name: '   ' }, 'name', 'must not be empty'],
    [{ name: 'abcdef' }, 'name', 'must be shorter than or equal to 5 characters'],
    [{ name: 'A\u0007b' }, 'name', 'must not contain control characters'],
    [{ name: 'A\nb' }, 'name', 'must not contain control characters'],
    [{ name: 'A\u0085b' }, 'name', 'must not contain control characters'],
    [{ name: 'ok', label: null }, 'label', 'must not be null'],
    [{ name: 'ok', label: 'x\ty' }, 'label', 'must not contain control characters'],
    [{ name: 'ok', external_id: 'x\u001fy' }, 'external_id', 'must not contain control characters'],
    [{ name: 'ok', code: 'x1' }, 'code', 'must be digits'],
    [{}, 'name', 'is required'],
  ])('refuses %j, naming %s', (value, field, message) => {
    expect(detailsOf(value)).toEqual(expect.arrayContaining([{ field, message }]));
  });

  it('documents the field once: description and maxLength in the schema, no control-character pattern', () => {
    const schema = targetConstructorToSchema(Body);
    expect(schema.required).toEqual(['name']);
    expect(schema.properties?.name).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: 5,
      description: 'A name.',
    });
    expect(schema.properties?.name).not.toHaveProperty('pattern');
    expect(schema.properties?.code).toMatchObject({ pattern: '^\\d+$' });
  });
});
