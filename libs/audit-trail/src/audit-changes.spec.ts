import { describe, expect, it } from 'vitest';
import { changesBetween, creationChanges, deletionChanges, hasChanges } from './audit-changes.js';

describe('audit changes', () => {
  const before = {
    name: 'Ana',
    email: 'ana@example.com',
    account_id: null as string | null,
    tags: ['a'],
  };

  it('lists only the fields that changed, with before and after', () => {
    const after = { ...before, name: 'Ana Souza', account_id: 'acc-1' };
    expect(changesBetween(before, after, ['name', 'email', 'account_id', 'tags'])).toEqual({
      name: { before: 'Ana', after: 'Ana Souza' },
      account_id: { before: null, after: 'acc-1' },
    });
    expect(hasChanges(changesBetween(before, { ...before, tags: ['a'] }, ['name', 'tags']))).toBe(
      false,
    );
  });

  it('ignores fields it was not asked about (secrets never enter)', () => {
    const a = { name: 'x', secret_hash: 'h1' };
    const b = { name: 'x', secret_hash: 'h2' };
    expect(changesBetween(a, b, ['name'])).toEqual({});
  });

  it('creation goes from null; deletion goes to null', () => {
    expect(creationChanges(before, ['name', 'account_id'])).toEqual({
      name: { before: null, after: 'Ana' },
      account_id: { before: null, after: null },
    });
    expect(deletionChanges(before, ['email'])).toEqual({
      email: { before: 'ana@example.com', after: null },
    });
  });
});
