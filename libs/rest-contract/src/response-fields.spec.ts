import { describe, expect, it } from 'vitest';
import { responseFields } from './response-fields.js';

describe('responseFields', () => {
  const row = {
    id: 'a',
    organization_id: 'o',
    name: 'Acme',
    tax_id: null,
    activated_at: null as Date | null,
    created_at: new Date('2026-01-02T03:04:05.678Z'),
  };

  it('copies the named fields in the given order, timestamps as ISO 8601 text', () => {
    const response = responseFields(row, ['name', 'id', 'tax_id', 'activated_at', 'created_at']);
    expect(response).toStrictEqual({
      name: 'Acme',
      id: 'a',
      tax_id: null,
      activated_at: null,
      created_at: '2026-01-02T03:04:05.678Z',
    });
    expect(JSON.stringify(response)).toBe(
      '{"name":"Acme","id":"a","tax_id":null,"activated_at":null,"created_at":"2026-01-02T03:04:05.678Z"}',
    );
  });

  it('leaves out the fields not named', () => {
    expect(responseFields(row, ['id'])).toStrictEqual({ id: 'a' });
  });
});
