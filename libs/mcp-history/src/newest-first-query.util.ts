import { CURSOR_TIMESTAMP_SQL } from '@app/rest-contract';

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

export interface NewestFirstSpec {
  from: string;
  /** The selected columns; `cursor_ts` (the keyset timestamp with microseconds) is added. */
  columns: string;
  organizationId: string;
  conditions: ReadonlyArray<Condition | undefined>;
  /** Inclusive lower bound on `created_at` (ISO 8601). */
  since?: string;
  /** Exclusive upper bound on `created_at` (ISO 8601). */
  until?: string;
  /** Keyset position `[created_at text, id]` of the last row already seen. */
  after?: readonly string[];
  /** Rows to fetch (the caller asks for one more than it shows). */
  take: number;
}

/**
 * One page of an organisation's rows, newest first in `(created_at, id)` keyset order: the shape
 * every `(organization_id, <filter>, created_at DESC, id DESC)` index serves without a sort.
 */
export function newestFirstQuery(spec: NewestFirstSpec): SqlQuery {
  const params: unknown[] = [];
  const bind = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = [`organization_id = ${bind(spec.organizationId)}::uuid`];
  for (const condition of spec.conditions) if (condition !== undefined) where.push(condition(bind));
  if (spec.since !== undefined) where.push(`created_at >= ${bind(spec.since)}::timestamptz`);
  if (spec.until !== undefined) where.push(`created_at < ${bind(spec.until)}::timestamptz`);
  if (spec.after !== undefined) {
    where.push(
      `(created_at, id) < (${bind(spec.after[0])}::timestamptz, ${bind(spec.after[1])}::uuid)`,
    );
  }
  const limit = bind(spec.take);
  return {
    text: `SELECT ${spec.columns}, ${CURSOR_TIMESTAMP_SQL('created_at')} AS cursor_ts FROM ${spec.from}
      WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
    params,
  };
}
