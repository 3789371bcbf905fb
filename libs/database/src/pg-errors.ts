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
