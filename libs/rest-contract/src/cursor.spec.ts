import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, pageRequest, toPage } from './cursor.js';

describe('cursors', () => {
  it('round-trip a keyset position and stay opaque (base64url)', () => {
    const c = encodeCursor(['2026-01-01T00:00:00.123456Z', 'b9f0a1c2-0000-4000-8000-000000000001']);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(c)).toEqual([
      '2026-01-01T00:00:00.123456Z',
      'b9f0a1c2-0000-4000-8000-000000000001',
    ]);
  });

  it('a tampered or foreign cursor is a VALIDATION_ERROR on cursor', () => {
    for (const bad of [
      '!!!',
      encodeCursor(['only-one']),
      Buffer.from('{"a":1}').toString('base64url'),
      encodeCursor(['not a time', 'not a uuid']),
      encodeCursor(['2026-01-01T00:00:00.123456Z', "x' OR 1=1"]),
      // Well-formed, but no such instant.
      encodeCursor(['2026-02-30T00:00:00.000000Z', 'b9f0a1c2-0000-4000-8000-000000000001']),
      encodeCursor(['2026-13-01T00:00:00.000000Z', 'b9f0a1c2-0000-4000-8000-000000000001']),
      encodeCursor(['2026-01-01T24:00:00.000000Z', 'b9f0a1c2-0000-4000-8000-000000000001']),
      encodeCursor(['0000-01-01T00:00:00.000000Z', 'b9f0a1c2-0000-4000-8000-000000000001']),
    ]) {
      expect(() => decodeCursor(bad)).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_ERROR',
          details: [expect.objectContaining({ field: 'cursor' })],
        }),
      );
    }
  });

  it('a text key Postgres cannot hold (U+0000) is a VALIDATION_ERROR on cursor', () => {
    const id = 'b9f0a1c2-0000-4000-8000-000000000001';
    expect(decodeCursor(encodeCursor(['ana@example.com', id]), 'text')).toEqual([
      'ana@example.com',
      id,
    ]);
    expect(() => decodeCursor(encodeCursor(['\u0000', id]), 'text')).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
  });

  it('toPage shows `limit` rows and a next cursor only when there was one more', () => {
    const rows = [1, 2, 3].map((n) => ({ n }));
    const full = toPage(
      rows,
      2,
      (r) => ['2026-01-01T00:00:00.000000Z', `00000000-0000-4000-8000-00000000000${r.n}`],
      (r) => r.n,
    );
    expect(full.data).toEqual([1, 2]);
    expect(decodeCursor(full.next_cursor!)).toEqual([
      '2026-01-01T00:00:00.000000Z',
      '00000000-0000-4000-8000-000000000002',
    ]);
    expect(
      toPage(
        rows,
        3,
        (r) => [String(r.n)],
        (r) => r.n,
      ).next_cursor,
    ).toBeNull();
  });

  it('pageRequest reads one row more than the page, after the decoded cursor', () => {
    expect(pageRequest({})).toEqual({ limit: 20, after: undefined, take: 21 });
    const id = '00000000-0000-4000-8000-000000000001';
    const cursor = encodeCursor(['a@example.com', id]);
    expect(pageRequest({ limit: 5, cursor }, 'text')).toEqual({
      limit: 5,
      after: ['a@example.com', id],
      take: 6,
    });
    expect(() => pageRequest({ cursor })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
  });
});
