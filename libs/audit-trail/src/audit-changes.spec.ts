import { describe, expect, it } from 'vitest';
import { auditedFields } from './audit-changes.js';

describe('audit changes', () => {
  const before = {
    name: 'Ana',
    email: 'ana@example.com',
    account_id: null as string | null,
    tags: ['a'],
  };

  it('lists only the fields that changed, with before and after', () => {
    const after = { ...before, name: 'Ana Souza', account_id: 'acc-1' };
    expect(auditedFields('name', 'email', 'account_id', 'tags').between(before, after)).toEqual({
      name: { before: 'Ana', after: 'Ana Souza' },
      account_id: { before: null, after: 'acc-1' },
    });
  });

  it('is undefined when no listed field changed (the write records no event)', () => {
    expect(auditedFields('name', 'tags').between(before, { ...before, tags: ['a'] })).toBe(
      undefined,
    );
  });

  it('ignores fields it was not asked about (secrets never enter)', () => {
    const a = { name: 'x', secret_hash: 'h1' };
    const b = { name: 'x', secret_hash: 'h2' };
    expect(auditedFields('name').between(a, b)).toBe(undefined);
    expect(auditedFields('name').created(a)).toEqual({ name: { before: null, after: 'x' } });
  });

  it('creation goes from null; deletion goes to null', () => {
    expect(auditedFields('name', 'account_id').created(before)).toEqual({
      name: { before: null, after: 'Ana' },
      account_id: { before: null, after: null },
    });
    expect(auditedFields('email').deleted(before)).toEqual({
      email: { before: 'ana@example.com', after: null },
    });
  });

  it('shows a timestamp as ISO 8601 text', () => {
    const at = new Date('2026-12-05T06:00:00.123Z');
    expect(auditedFields('expires_at').created({ expires_at: at })).toEqual({
      expires_at: { before: null, after: '2026-12-05T06:00:00.123Z' },
    });
  });
});
