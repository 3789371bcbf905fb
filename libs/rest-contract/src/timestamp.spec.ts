import { describe, expect, it } from 'vitest';
import { parseTimestamp } from './timestamp.js';

describe('parseTimestamp (the one parser for client instants)', () => {
  it('accepts RFC 3339 date-times with a zone, on days that exist', () => {
    for (const [text, iso] of [
      ['2026-01-31T09:00:00Z', '2026-01-31T09:00:00.000Z'],
      ['2026-01-31T09:00:00.5+01:00', '2026-01-31T08:00:00.500Z'],
      ['2028-02-29T23:59:59.999999Z', '2028-02-29T23:59:59.999Z'],
      ['2026-01-31t09:00:00z', '2026-01-31T09:00:00.000Z'],
    ])
      expect(parseTimestamp(text)?.toISOString(), text).toBe(iso);
  });

  it('refuses what ISO 8601 or Date.parse would take but Postgres or the calendar would not', () => {
    for (const text of [
      '2026',
      '2026-01',
      '2026-01-01',
      '2026-W01',
      '2026-W01-1',
      '2026-001',
      '2026-01-01T10Z',
      '2026-01-01T10:00Z',
      '2026-01-01T10:00:00,5Z',
      '2026-01-01T10:00:00',
      '2026-02-30T00:00:00Z',
      '2027-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-12-31T23:59:60Z',
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:00:00+01:00',
      '+002026-01-01T00:00:00Z',
      '2026-01-01T00:00:00+24:00',
      '2026-01-01T00:00:00Z\u0000',
      ' 2026-01-01T00:00:00Z',
      '',
    ])
      expect(parseTimestamp(text), JSON.stringify(text)).toBeUndefined();
  });
});
