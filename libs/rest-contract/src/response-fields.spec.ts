import { describe, expect, it } from 'vitest';
import { responseFields } from './response-fields.js';
import { Out } from './response-property.decorator.js';

class ThingDto {
  @Out.string() name: string;
  @Out.uuid() id: string;
  @Out.string({ nullable: true }) tax_id: string | null;
  @Out.dateTime({ nullable: true }) activated_at: string | null;
  @Out.dateTime() created_at: string;
}

class DetailedThingDto extends ThingDto {
  @Out.integer() uses: number;
}

class NoFieldsDto {
  name: string;
}

describe('responseFields', () => {
  const row = {
    id: 'a',
    organization_id: 'o',
    name: 'Acme',
    tax_id: null,
    activated_at: null as Date | null,
    created_at: new Date('2026-01-02T03:04:05.678Z'),
    uses: 3,
  };

  it("copies the DTO's declared fields in its order, timestamps as ISO 8601 text", () => {
    const response = responseFields(ThingDto, row);
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

  it('leaves out the columns the DTO does not declare (organization_id)', () => {
    expect(Object.keys(responseFields(ThingDto, row))).not.toContain('organization_id');
  });

  it("puts a subclass's fields after the inherited ones", () => {
    expect(Object.keys(responseFields(DetailedThingDto, row))).toEqual([
      'name',
      'id',
      'tax_id',
      'activated_at',
      'created_at',
      'uses',
    ]);
  });

  it('is a type error for a row that lacks a declared field (npm run typecheck checks it)', () => {
    // @ts-expect-error -- the row has no id, tax_id, activated_at or created_at
    const partial = responseFields(ThingDto, { name: 'x' });
    expect(partial.name).toBe('x');
  });

  it('refuses a class that declares no response field', () => {
    expect(() => responseFields(NoFieldsDto, { name: 'x' })).toThrow(
      'NoFieldsDto declares no response field',
    );
  });
});
