/** What {@link organizationRow} runs its statement through (a DataSource or a transaction's manager). */
interface Queryable {
  query<T>(sql: string, params?: unknown[]): Promise<T>;
}

/** A table as its owning repository reads it: the table and the columns it selects. */
export interface RowSource {
  table: string;
  columns: string;
}

/**
 * Row `id` of organisation `organizationId`, or undefined: a row of another organisation reads as
 * missing, so no caller can tell it exists. With `lock`, `db` is the caller's transaction and the
 * row stays locked (`FOR UPDATE`) until it ends. `source` is the owning repository's constant,
 * never input.
 */
export async function organizationRow<R>(
  db: Queryable,
  source: RowSource,
  organizationId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<R | undefined> {
  const lock = options.lock === true ? ' FOR UPDATE' : '';
  const rows = await db.query<R[]>(
    `SELECT ${source.columns} FROM ${source.table} WHERE organization_id = $1 AND id = $2${lock}`,
    [organizationId, id],
  );
  return rows[0];
}
