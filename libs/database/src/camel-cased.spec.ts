import { describe, expect, it } from 'vitest';
import { camelCasedRows } from './camel-cased.js';

interface Row {
  id: string;
  organization_id: string;
  last_used_at: Date | null;
}

describe('camelCasedRows', () => {
  const toRecord = camelCasedRows<Row>(`id, organization_id,
    last_used_at`);

  it('names each listed column in camelCase, its value unchanged', () => {
    const at = new Date('2026-01-02T03:04:05Z');
    expect(toRecord({ id: 'a', organization_id: 'o', last_used_at: at })).toStrictEqual({
      id: 'a',
      organizationId: 'o',
      lastUsedAt: at,
    });
  });

  it('leaves out what the statement returned beside the listed columns', () => {
    const row = { id: 'a', organization_id: 'o', last_used_at: null, cursor_ts: '1', lapsed: true };
    expect(toRecord(row)).toStrictEqual({ id: 'a', organizationId: 'o', lastUsedAt: null });
  });
});
