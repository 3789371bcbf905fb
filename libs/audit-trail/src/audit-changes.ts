/** What a write changed: `{ field: { before, after } }`, changed fields only. Never holds secrets. */
export type AuditChanges = Record<string, { before: unknown; after: unknown }>;

function value(record: object, field: string): unknown {
  const v: unknown = Reflect.get(record, field);
  return v instanceof Date ? v.toISOString() : (v ?? null);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * The fields of `fields` whose value differs between `before` and `after` (which need hold only
 * those fields: e.g. the values an update writes).
 */
export function changesBetween<T extends object, K extends keyof T & string>(
  before: T,
  after: Pick<T, K>,
  fields: readonly K[],
): AuditChanges {
  const out: AuditChanges = {};
  for (const f of fields) {
    const a = value(before, f);
    const b = value(after, f);
    if (!same(a, b)) out[f] = { before: a, after: b };
  }
  return out;
}

/** A created record: every listed field from `null` to its value. */
export function creationChanges<T extends object>(
  record: T,
  fields: readonly (keyof T & string)[],
): AuditChanges {
  return Object.fromEntries(fields.map((f) => [f, { before: null, after: value(record, f) }]));
}

/** A deleted record: every listed field from its value to `null`. */
export function deletionChanges<T extends object>(
  record: T,
  fields: readonly (keyof T & string)[],
): AuditChanges {
  return Object.fromEntries(fields.map((f) => [f, { before: value(record, f), after: null }]));
}

export function hasChanges(changes: AuditChanges): boolean {
  return Object.keys(changes).length > 0;
}
