/** A field's value in a JSON response: a timestamp as ISO 8601 text (`null` stays `null`). */
export type ResponseValue<V> = V extends Date ? string : V;

/**
 * The response of a row whose DTO names its fields as its columns: `fields` of it, in that order
 * (the order the JSON shows), each timestamp as ISO 8601 text, the one way the API writes a time.
 */
export function responseFields<R extends object, K extends keyof R & string>(
  row: R,
  fields: readonly K[],
): { [P in K]: ResponseValue<R[P]> } {
  const response: Record<string, unknown> = {};
  for (const field of fields) {
    const value = row[field];
    response[field] = value instanceof Date ? value.toISOString() : value;
  }
  // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- each of `fields`, a Date as text: what the type says
  return response as { [P in K]: ResponseValue<R[P]> };
}
