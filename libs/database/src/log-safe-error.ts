/** The fields of a Postgres error (pg's DatabaseError, or TypeORM's QueryFailedError around one). */
interface DatabaseErrorFields {
  code?: unknown;
  severity?: unknown;
  constraint?: unknown;
  table?: unknown;
  column?: unknown;
  routine?: unknown;
  query?: unknown;
  parameters?: unknown;
  driverError?: unknown;
}

function fieldsOf(err: object): DatabaseErrorFields {
  return err;
}

function isDatabaseError(err: object): boolean {
  const e = fieldsOf(err);
  return (
    (err instanceof Error && err.name === 'QueryFailedError') ||
    'parameters' in err ||
    (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && 'severity' in err)
  );
}

function rawErrorOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !('raw' in value)) return value;
  return value.raw instanceof Error ? value.raw : value;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The statement itself (our SQL, never the data): first 200 characters, whitespace folded. */
function statementOf(query: unknown): string | undefined {
  const sql = text(query);
  return sql === undefined ? undefined : sql.replace(/\s+/g, ' ').trim().slice(0, 200);
}

/**
 * The `err` serializer of every log line. A database error is logged as what went wrong where —
 * SQLSTATE, constraint, table, routine, the statement — never its parameters, its `detail`
 * (`Key (email)=(ana@…) already exists`) or its message (`invalid input syntax for type uuid:
 * "…"`), which carry request data and personal data. Other errors by type, message, code and
 * stack (not their other fields), with any database error in their `cause` chain treated the
 * same way.
 */
export function logSafeError(value: unknown, depth = 0): unknown {
  // pino-http hands a custom `err` serializer pino's own serialization, the error under `raw`.
  const err = depth === 0 ? rawErrorOf(value) : value;
  if (typeof err !== 'object' || err === null) return err;
  if (isDatabaseError(err)) {
    const outer = fieldsOf(err);
    const driver =
      typeof outer.driverError === 'object' && outer.driverError !== null
        ? fieldsOf(outer.driverError)
        : outer;
    return {
      type: err instanceof Error ? err.name : 'DatabaseError',
      sqlState: text(driver.code),
      constraint: text(driver.constraint),
      table: text(driver.table),
      routine: text(driver.routine),
      statement: statementOf(outer.query),
    };
  }
  if (!(err instanceof Error)) return err;
  const code = 'code' in err ? text(err.code) : undefined;
  return {
    type: err.constructor.name,
    message: err.message,
    ...(code === undefined ? {} : { code }),
    stack: err.stack,
    ...(err.cause !== undefined && depth < 5 ? { cause: logSafeError(err.cause, depth + 1) } : {}),
  };
}
