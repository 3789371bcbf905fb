import { DomainError } from '@app/errors';
import { DEFAULT_PAGE_LIMIT } from './page-query.dto.js';
import { parseTimestamp } from './timestamp.js';

/**
 * Opaque keyset cursors: the sort key of the last row of a page (e.g. its timestamp text with
 * microseconds and its id), base64url-encoded JSON. A cursor that does not decode to the expected
 * shape is a `VALIDATION_ERROR` on `cursor`.
 */
export function encodeCursor(position: readonly string[]): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

const CURSOR_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A keyset position: (sort key, uuid). Most lists sort by a timestamp with microseconds
 * (`'timestamp'`, an instant that exists); a list sorted by a text key (members by e-mail) says
 * `'text'` (text Postgres can hold). A cursor that is not such a position (foreign, tampered, or
 * hand-made) is a VALIDATION_ERROR on `cursor`, never a database error.
 */
export function decodeCursor(
  raw: string,
  sortKey: 'timestamp' | 'text' = 'timestamp',
): [key: string, id: string] {
  const [key, id] = decodePosition(raw, 2);
  const keyOk =
    key !== undefined &&
    (sortKey === 'text'
      ? isStorableText(key)
      : CURSOR_TIMESTAMP.test(key) && parseTimestamp(key) !== undefined);
  if (!keyOk || id === undefined || !UUID.test(id)) throw invalidCursor();
  return [key, id];
}

function decodePosition(raw: string, length: number): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (!isCursorPosition(parsed, length)) throw invalidCursor();
  return parsed;
}

/** Text Postgres can hold: no U+0000. */
function isStorableText(text: string): boolean {
  return !text.includes('\u0000');
}

function invalidCursor(): DomainError {
  return DomainError.validation(
    [{ field: 'cursor', message: 'is not a valid cursor (use next_cursor from a previous page)' }],
    'Validation failed: cursor is not a valid cursor',
  );
}

function isCursorPosition(value: unknown, length: number): value is string[] {
  return (
    Array.isArray(value) &&
    value.length === length &&
    value.every((p: unknown) => typeof p === 'string' && p.length <= 512)
  );
}

/** What a list query asks of its repository: the page size, and which rows to read. */
export interface PageRequest {
  limit: number;
  /** The keyset position the previous page ended at (none for the first page). */
  after: [key: string, id: string] | undefined;
  /** One row more than the page: {@link toPage} shows `limit` and learns from the extra one. */
  take: number;
}

/**
 * A list query's `limit` (its default when left out) and `cursor` (decoded: a VALIDATION_ERROR
 * unless it is a position of this list's `sortKey`) as the repository reads them.
 */
export function pageRequest(
  query: { limit?: number; cursor?: string },
  sortKey: 'timestamp' | 'text' = 'timestamp',
): PageRequest {
  const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
  return {
    limit,
    after: query.cursor === undefined ? undefined : decodeCursor(query.cursor, sortKey),
    take: limit + 1,
  };
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * Builds a page from `limit + 1` rows fetched in sort order: the extra row only says that there
 * is a next page, whose cursor is the position of the last row shown.
 */
export function toPage<R, T>(
  rows: readonly R[],
  limit: number,
  positionOf: (row: R) => readonly string[],
  map: (row: R) => T,
): Page<T> {
  const shown = rows.slice(0, limit);
  const last = shown[shown.length - 1];
  return {
    data: shown.map(map),
    next_cursor: rows.length > limit && last !== undefined ? encodeCursor(positionOf(last)) : null,
  };
}

/** Postgres `timestamptz` as cursor text with microseconds (JS Dates lose them). */
export const CURSOR_TIMESTAMP_SQL = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
