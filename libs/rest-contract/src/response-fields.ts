import type { Type } from '@nestjs/common';
import type { Plain } from './plain.js';
import { declaredResponseFields } from './response-property.decorator.js';

/** What a row may hold for a response field: a timestamp may still be a `Date`. */
export type RowValue<V> = V extends string ? V | Date : V;

/** A row that holds every field of the response DTO `D` (and any other columns). */
export type RowOf<D> = { readonly [K in keyof D]: RowValue<D[K]> };

/**
 * The response `dto` describes, copied from a row that holds its fields under the same names: the
 * fields the class declares with `Out.*`, in that order (the order the JSON shows), each timestamp
 * as ISO 8601 text, the one way the API writes a time. The DTO class is the one list of the
 * response's fields: its schemas, its JSON and this copy all read it.
 */
export function responseFields<D extends object>(dto: Type<D>, row: RowOf<D>): Plain<D> {
  const fields = declaredResponseFields(dto);
  if (fields.length === 0) throw new TypeError(`${dto.name} declares no response field`);
  const response: Record<string, unknown> = {};
  for (const field of fields) {
    const value: unknown = Reflect.get(row, field);
    response[field] = value instanceof Date ? value.toISOString() : value;
  }
  // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- each field of the DTO, a Date as text: what the type says
  return response as Plain<D>;
}
