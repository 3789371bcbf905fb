import { describe, expect, it } from 'vitest';
import { constraintErrorOf } from './pg-errors.js';

const ERRORS = { uq_things_name: () => 'taken', fk_things_owner: () => 'no such owner' };

describe('constraintErrorOf', () => {
  it('answers a unique or foreign-key violation of a named constraint, as TypeORM wraps it', () => {
    const unique = { driverError: { code: '23505', constraint: 'uq_things_name' } };
    expect(constraintErrorOf(unique, ERRORS)).toBe('taken');
    expect(constraintErrorOf({ code: '23503', constraint: 'fk_things_owner' }, ERRORS)).toBe(
      'no such owner',
    );
  });
  it('leaves other errors and constraints it does not name to the caller', () => {
    expect(constraintErrorOf({ code: '23505', constraint: 'uq_other' }, ERRORS)).toBeUndefined();
    expect(
      constraintErrorOf({ code: '23514', constraint: 'uq_things_name' }, ERRORS),
    ).toBeUndefined();
    expect(constraintErrorOf(new Error('boom'), ERRORS)).toBeUndefined();
  });
});
