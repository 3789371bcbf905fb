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
