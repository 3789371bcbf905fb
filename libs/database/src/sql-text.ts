/**
 * Escapes the `LIKE`/`ILIKE` wildcards (`%`, `_`) and the escape character itself, so a search
 * term typed by a person matches literally (Postgres's default escape character is `\`).
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The one row an `INSERT … RETURNING` (or `UPDATE … RETURNING` known to match) gave back. */
export function returnedRow<T>(rows: readonly T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('the statement returned no row');
  return row;
}

/** The first row a statement returned, mapped by `map`; undefined when it returned none. */
export function firstRowAs<R, T>(rows: readonly R[], map: (row: R) => T): T | undefined {
  const row = rows[0];
  return row === undefined ? undefined : map(row);
}

/** What {@link purgeExpiredRows} runs statements through (a DataSource or a transaction's manager). */
interface Queryable {
  query<T>(sql: string, params?: unknown[]): Promise<T>;
}

/**
 * Deletes at most `limit` rows of `table` whose `expires_at` passed more than `graceSeconds` (a
 * day) ago; rows another replica's sweep holds are skipped, not waited for. `key` identifies a row
 * (`ctid` for a table without a single-column key). Returns how many were deleted. `table` and
 * `key` are the caller's constants, never input.
 */
export async function purgeExpiredRows(
  db: Queryable,
  table: string,
  key: string,
  limit: number,
  graceSeconds = 86_400,
): Promise<number> {
  // A DELETE answers [rows, affected] through TypeORM's postgres driver.
  const [, deleted] = await db.query<[unknown[], number]>(
    `DELETE FROM ${table} WHERE ${key} IN (
         SELECT ${key} FROM ${table} WHERE expires_at < now() - make_interval(secs => $2)
          LIMIT $1 FOR UPDATE SKIP LOCKED)`,
    [limit, graceSeconds],
  );
  return deleted;
}
