/**
 * Escapes the `LIKE`/`ILIKE` wildcards (`%`, `_`) and the escape character itself, so a search
 * term typed by a person matches literally (Postgres's default escape character is `\`).
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
