import { Type } from 'class-transformer';
import {
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { describe, expect, it } from 'vitest';
import { DomainError } from '@app/errors';
import { OptionalNotNull, Trim } from './input-decorators.js';
import { validateInput } from './validate-input.js';

class Body {
  @Trim()
  @IsEmail()
  email: string;

  @Trim()
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(5)
  name: string;

  @IsOptional()
  @IsUUID('all')
  account_id?: string | null;

  @OptionalNotNull()
  @IsIn(['a', 'b'])
  kind?: string;
}

class Query {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

function failure(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

describe('validateInput', () => {
  it('returns a DTO instance with trimmed strings and converted query numbers', () => {
    const body = validateInput(Body, { email: ' ana@example.com ', name: ' Ana ' }, 'body');
    expect(body).toBeInstanceOf(Body);
    expect(body).toMatchObject({ email: 'ana@example.com', name: 'Ana' });
    expect(validateInput(Query, { limit: '20' }, 'query').limit).toBe(20);
  });

  it('one detail per failing constraint, field named as the API shows it, human message', () => {
    const e = failure(() => validateInput(Body, { email: 'nope', name: 'toolong' }, 'body'));
    expect(e.code).toBe('VALIDATION_ERROR');
    expect(e.details).toEqual([
      { field: 'email', message: 'must be an email' },
      { field: 'name', message: 'must be shorter than or equal to 5 characters' },
    ]);
    expect(e.message).toBe(
      'Validation failed: email must be an email; name must be shorter than or equal to 5 characters',
    );
  });

  it('missing required fields say "is required"; null where not allowed says so; wrong type says the type only', () => {
    expect(failure(() => validateInput(Body, {}, 'body')).details).toEqual([
      { field: 'email', message: 'is required' },
      { field: 'name', message: 'is required' },
    ]);
    expect(
      failure(() => validateInput(Body, { email: 'a@b.co', name: 'x', kind: null }, 'body'))
        .details,
    ).toEqual([{ field: 'kind', message: 'must not be null' }]);
    expect(
      failure(() => validateInput(Body, { email: 'a@b.co', name: 42 }, 'body')).details,
    ).toEqual([{ field: 'name', message: 'must be a string' }]);
    expect(failure(() => validateInput(Query, { limit: 'abc' }, 'query')).details).toEqual([
      { field: 'limit', message: 'must be an integer number' },
    ]);
  });

  it('null clears an @IsOptional field; a bad uuid is named', () => {
    expect(
      validateInput(Body, { email: 'a@b.co', name: 'x', account_id: null }, 'body').account_id,
    ).toBeNull();
    expect(
      failure(() => validateInput(Body, { email: 'a@b.co', name: 'x', account_id: '42' }, 'body'))
        .details,
    ).toEqual([{ field: 'account_id', message: 'must be a UUID' }]);
  });

  it('refuses unknown fields and non-object bodies', () => {
    expect(
      failure(() => validateInput(Body, { email: 'a@b.co', name: 'x', bogus: 1 }, 'body')).details,
    ).toEqual([{ field: 'bogus', message: 'is not allowed' }]);
    expect(failure(() => validateInput(Body, [1, 2], 'body')).details).toEqual([
      { field: 'body', message: 'must be a JSON object' },
    ]);
    expect(failure(() => validateInput(Query, { limit: '5', q: 'x' }, 'query')).details).toEqual([
      { field: 'q', message: 'is not allowed' },
    ]);
  });
});

/** The details of the VALIDATION_ERROR `validateInput` throws, or `'accepted'`. */
const nul = (value: unknown, location: 'body' | 'query' = 'body') => {
  try {
    validateInput(Body, value, location);
  } catch (e) {
    if (e instanceof DomainError) return e.details;
  }
  return 'accepted';
};

describe('validateInput: what no DTO rule is asked to look at', () => {
  it('refuses U+0000 in any string, nested or not, naming the field', () => {
    expect(nul({ email: 'a@example.com', name: 'a\u0000' })).toEqual([
      { field: 'name', message: 'must not contain the character U+0000' },
    ]);
    expect(nul({ email: 'a@example.com', name: 'ab', kind: ['x', { y: '\u0000' }] })).toEqual([
      { field: 'kind[1].y', message: 'must not contain the character U+0000' },
    ]);
    expect(nul({ 'a\u0000': 1 }, 'query')).toEqual([
      { field: 'query', message: 'must not contain a field name with the character U+0000' },
    ]);
  });

  it('refuses a lone UTF-16 surrogate (not Unicode; the e-mail check would throw on it), naming the field', () => {
    const lone = 'must not contain a lone UTF-16 surrogate (not valid Unicode)';
    expect(nul({ email: '\ud800', name: 'ab' })).toEqual([{ field: 'email', message: lone }]);
    expect(nul({ email: 'a@example.com', name: 'x\udc00y' })).toEqual([
      { field: 'name', message: lone },
    ]);
    expect(nul({ 'a\ud800': 1 }, 'query')).toEqual([
      {
        field: 'query',
        message: `must not contain a field name with a lone UTF-16 surrogate (not valid Unicode)`,
      },
    ]);
    // A surrogate pair is one character (an emoji), not a lone half.
    expect(nul({ email: 'a@example.com', name: '\ud83d\ude00' })).toBe('accepted');
  });

  it('refuses nesting deeper than MAX_INPUT_DEPTH without recursing (no stack overflow)', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() =>
      validateInput(Body, { email: 'a@example.com', name: 'a', kind: deep }, 'body'),
    ).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_ERROR',
        details: [
          {
            field: expect.stringMatching(/^kind(\[0\])+$/),
            message: expect.stringMatching(/nested too deeply/),
          },
        ],
      }),
    );
  });
});
