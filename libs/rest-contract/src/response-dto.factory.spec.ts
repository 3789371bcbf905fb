import { getMetadataStorage } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { describe, expect, it } from 'vitest';
import { DeletedOf, PageOf } from './response-dto.factory.js';
import { Out } from './response-property.decorator.js';

class WidgetDto {
  @Out.string() name: string;
}

class WidgetPageDto extends PageOf(WidgetDto) {}
class DeletedWidgetDto extends DeletedOf(WidgetDto) {}

describe('PageOf / DeletedOf', () => {
  const schemas = validationMetadatasToSchemas({
    classValidatorMetadataStorage: getMetadataStorage(),
    refPointerPrefix: '#/$defs/',
  });

  it('file the schema under the subclass’s name, the name the MCP output schemas look up', () => {
    expect(schemas[WidgetPageDto.name]).toEqual({
      type: 'object',
      properties: {
        data: { type: 'array', items: { $ref: '#/$defs/WidgetDto' } },
        next_cursor: {
          anyOf: [{ type: 'string' }, { type: 'null' }],
          description: 'Cursor of the next page; `null` on the last page.',
        },
      },
      required: ['data', 'next_cursor'],
    });
    expect(schemas[DeletedWidgetDto.name]).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string', format: 'uuid' },
        deleted: { type: 'boolean', const: true },
      },
      required: ['id', 'deleted'],
    });
  });

  it('refuse an item whose name does not end in Dto (there would be no name to derive)', () => {
    class Widget {}
    expect(() => PageOf(Widget)).toThrow('Widget: a response DTO’s name ends in Dto');
  });
});
