/** `snake_case` → `camelCase` (`organization_id` → `organizationId`). */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** A row type's columns under their camelCase names, each value's type unchanged. */
export type CamelCased<R> = { [K in keyof R & string as CamelCase<K>]: R[K] };

/**
 * The row mapper of a repository whose record names each column in camelCase, the value as the
 * driver gave it: `columns` is its SELECT list (`'id, organization_id, …'`), read once here. What a
 * statement returns beside those columns (`cursor_ts`, a computed flag) stays out of the record.
 */
export function camelCasedRows<R extends object>(columns: string): (row: R) => CamelCased<R> {
  const names = columns.split(',').map((column) => {
    const name = column.trim();
    return [name, name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] as const;
  });
  return (row) => {
    const record: Record<string, unknown> = {};
    for (const [column, key] of names) record[key] = Reflect.get(row, column);
    // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- the SELECT list renamed; the row type R names the same columns
    return record as CamelCased<R>;
  };
}
