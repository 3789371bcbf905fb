/** Postgres error helpers: repositories turn constraint violations into domain errors. */
interface PgErrorLike {
  code?: string;
  constraint?: string;
  driverError?: PgErrorLike;
}

function pgError(err: unknown): PgErrorLike | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as PgErrorLike;
  return e.driverError ?? e;
}

export function isUniqueViolation(err: unknown): boolean {
  return pgError(err)?.code === '23505';
}

export function uniqueConstraintOf(err: unknown): string | undefined {
  const e = pgError(err);
  return e?.code === '23505' ? e.constraint : undefined;
}

/** The constraint of a foreign-key violation (23503), if `err` is one. */
export function foreignKeyConstraintOf(err: unknown): string | undefined {
  const e = pgError(err);
  return e?.code === '23503' ? e.constraint : undefined;
}

/**
 * What a repository answers for a unique or foreign-key violation: `errors` by the violated
 * constraint's name; undefined for any other error, or a constraint `errors` does not name.
 */
export function constraintErrorOf<E>(
  err: unknown,
  errors: Readonly<Record<string, () => E>>,
): E | undefined {
  const constraint = uniqueConstraintOf(err) ?? foreignKeyConstraintOf(err);
  return constraint === undefined ? undefined : errors[constraint]?.();
}

/** `relation "…" does not exist` (42P01): e.g. a table whose migration has not run. */
export function isUndefinedTable(err: unknown): boolean {
  return pgError(err)?.code === '42P01';
}

/** SQLSTATE classes and codes that mean "the database cannot serve this now", not "bad query". */
const UNAVAILABLE_SQLSTATES = new Set([
  '57014', // query_canceled: statement_timeout
  '25P03', // idle_in_transaction_session_timeout
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
  '53300', // too_many_connections
  '53000', // insufficient_resources
]);
/** Node socket errors on the way to the database. */
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  // The request's database deadline ran out (database-deadline.ts).
  'DATABASE_DEADLINE_EXCEEDED',
]);
/** What `pg` says when a connection or a query runs out of time or is cut. */
const UNAVAILABLE_MESSAGES =
  /^(Query read timeout|Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated due to connection timeout)/;

/**
 * True when `err` says the database could not be reached or did not answer in time (connection
 * refused or cut, pool or connect timeout, statement or read timeout, server shutting down): the
 * request should be answered 503 with `Retry-After`, not 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = pgError(err);
  const code = e?.code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08')) return true;
    if (UNAVAILABLE_SOCKET_CODES.has(code)) return true;
  }
  const messages = [err, e].map((x) =>
    typeof x === 'object' && x !== null && 'message' in x && typeof x.message === 'string'
      ? x.message
      : '',
  );
  return messages.some((m) => UNAVAILABLE_MESSAGES.test(m));
}
