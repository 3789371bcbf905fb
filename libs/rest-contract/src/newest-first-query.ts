import { escapeLike } from '@app/database';
import {
  CURSOR_TIMESTAMP_SQL,
  pageRequest,
  toPage,
  type Page,
  type PageRequest,
} from './cursor.js';

/** A parameterised SQL statement, as the repositories run it (and as tests EXPLAIN it). */
export interface SqlQuery {
  text: string;
  params: unknown[];
}

/** A WHERE condition; `bind` adds a parameter and returns its placeholder (`$n`). */
export type Condition = (bind: (value: unknown) => string) => string;

/** `column = $n` (with an optional cast), or no condition when the filter was not given. */
export function equals(
  column: string,
  value: string | undefined,
  cast = '',
): Condition | undefined {
  return value === undefined ? undefined : (bind) => `${column} = ${bind(value)}${cast}`;
}

/**
 * Any of the columns contains the text, ignoring case, the text matched literally (`%` and `_`
 * are not wildcards); no condition when no text was given.
 */
export function contains(
  columns: readonly string[],
  text: string | undefined,
): Condition | undefined {
  if (text === undefined) return undefined;
  return (bind) => {
    const pattern = bind(`%${escapeLike(text)}%`);
    const any = columns.map((column) => `${column} ILIKE ${pattern}`);
    return any.length === 1 ? any[0] : `(${any.join(' OR ')})`;
  };
}

/**
 * A page of a {@link newestFirstQuery} list's rows (`take` of them): {@link toPage}, the next
 * page's cursor holding the last shown row's keyset position, its `cursor_ts` and its id.
 */
export function newestFirstPage<R extends { cursor_ts: string; id: string }, T>(
  rows: readonly R[],
  limit: number,
  map: (row: R) => T,
): Page<T> {
  return toPage(rows, limit, (r) => [r.cursor_ts, r.id], map);
}

/**
 * A record of a {@link newestFirstQuery} list as its repository maps it (which keeps no
 * `cursor_ts`), beside its row's keyset timestamp: the repository's list returns these.
 */
export interface Listed<T extends { id: string }> {
  record: T;
  cursorTs: string;
}

/** Each listed row mapped to its record, its `cursor_ts` kept beside it. */
export function listedAs<R extends { cursor_ts: string }, T extends { id: string }>(
  rows: readonly R[],
  map: (row: R) => T,
): Listed<T>[] {
  return rows.map((row) => ({ record: map(row), cursorTs: row.cursor_ts }));
}

/** {@link newestFirstPage} for listed records: the same keyset position, the record's id. */
export function listedPage<T extends { id: string }, D>(
  rows: readonly Listed<T>[],
  limit: number,
  map: (record: T) => D,
): Page<D> {
  return toPage(
    rows,
    limit,
    (r) => [r.cursorTs, r.record.id],
    (r) => map(r.record),
  );
}

/** What a list's repository is asked to read for one page: where to start and how many rows. */
export type PageWindow = Pick<PageRequest, 'after' | 'take'>;

/**
 * One page of a {@link newestFirstQuery} list for a list query's `limit` and `cursor`: `read`
 * reads the page's window (one row more than the page, after the cursor's position) and
 * {@link newestFirstPage} pages its rows by that same limit.
 */
export async function readNewestFirstPage<R, T>(
  query: { limit?: number; cursor?: string },
  read: (window: PageWindow) => Promise<readonly (R & { cursor_ts: string; id: string })[]>,
  map: (row: R) => T,
): Promise<Page<T>> {
  const { limit, after, take } = pageRequest(query);
  return newestFirstPage(await read({ after, take }), limit, map);
}

/** {@link readNewestFirstPage} for a repository that lists records ({@link listedPage}). */
export async function readListedPage<T, D>(
  query: { limit?: number; cursor?: string },
  read: (window: PageWindow) => Promise<readonly Listed<T & { id: string }>[]>,
  map: (record: T) => D,
): Promise<Page<D>> {
  const { limit, after, take } = pageRequest(query);
  return listedPage(await read({ after, take }), limit, map);
}

/** What a {@link newestFirstQuery} list selects (the table, its columns, its filters), and where. */
export interface NewestFirstSpec {
  from: string;
  /** The selected columns; `cursor_ts` (the keyset timestamp with microseconds) is added. */
  columns: string;
  /** The timestamp the list is sorted by (`created_at` unless said otherwise). */
  sortColumn?: string;
  organizationId: string;
  conditions: ReadonlyArray<Condition | undefined>;
  /** Which stretch of the list: the repository's list filter, handed over whole. */
  window: NewestFirstWindow;
}

/** Which stretch of a {@link newestFirstQuery} list to read; a list filter extends it. */
export interface NewestFirstWindow {
  /** Inclusive lower bound on the sort column (ISO 8601). */
  since?: string;
  /** Exclusive upper bound on the sort column (ISO 8601). */
  until?: string;
  /** Keyset position `[timestamp text, id]` of the last row already seen. */
  after?: readonly string[];
  /** Rows to fetch (the caller asks for one more than it shows). */
  take: number;
}

/**
 * One page of an organisation's rows, newest first in `(<sort column>, id)` keyset order: the
 * shape every `(organization_id, <filter>, <sort column> DESC, id DESC)` index serves without a
 * sort, and so does `(organization_id, <sort column> DESC, id DESC, <filters…>)` (the filters
 * checked on the index entries). Every list of the API that pages newest first is built here, so the keyset comparison,
 * the bounds and the cursor text cannot differ from one resource to the next.
 */
export function newestFirstQuery(spec: NewestFirstSpec): SqlQuery {
  const sort = spec.sortColumn ?? 'created_at';
  const params: unknown[] = [];
  const bind = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = [`organization_id = ${bind(spec.organizationId)}::uuid`];
  for (const condition of spec.conditions) if (condition !== undefined) where.push(condition(bind));
  const { since, until, after, take } = spec.window;
  if (since !== undefined) where.push(`${sort} >= ${bind(since)}::timestamptz`);
  if (until !== undefined) where.push(`${sort} < ${bind(until)}::timestamptz`);
  if (after !== undefined) {
    where.push(`(${sort}, id) < (${bind(after[0])}::timestamptz, ${bind(after[1])}::uuid)`);
  }
  const limit = bind(take);
  return {
    text: `SELECT ${spec.columns}, ${CURSOR_TIMESTAMP_SQL(sort)} AS cursor_ts FROM ${spec.from}
      WHERE ${where.join(' AND ')} ORDER BY ${sort} DESC, id DESC LIMIT ${limit}`,
    params,
  };
}
