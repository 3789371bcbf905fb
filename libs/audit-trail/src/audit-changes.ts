/** What a write changed: `{ field: { before, after } }`, changed fields only. Never holds secrets. */
export type AuditChanges = Record<string, { before: unknown; after: unknown }>;

/**
 * The fields of a kind of record that its audit events show, listed once, and the changes of each
 * write over them. Only these fields enter an event: a secret is never listed, so never audited.
 */
export interface AuditedFields<K extends string> {
  readonly fields: readonly K[];
  /** A created record: every field from `null` to its value. */
  created(record: Readonly<Record<K, unknown>>): AuditChanges;
  /**
   * The fields whose value differs between `before` and `after` (`after` need hold only the
   * fields: e.g. the values an update writes); `undefined` when none does, and the write then
   * records no event.
   */
  between(
    before: Readonly<Record<K, unknown>>,
    after: Readonly<Record<K, unknown>>,
  ): AuditChanges | undefined;
  /** A deleted record: every field from its value to `null`. */
  deleted(record: Readonly<Record<K, unknown>>): AuditChanges;
}

/** The audited fields `fields`, in the order the events show them. */
export function auditedFields<const K extends string>(...fields: K[]): AuditedFields<K> {
  return {
    fields,
    created: (record) =>
      Object.fromEntries(fields.map((f) => [f, { before: null, after: value(record, f) }])),
    between(before, after) {
      const out: AuditChanges = {};
      for (const f of fields) {
        const a = value(before, f);
        const b = value(after, f);
        if (!same(a, b)) out[f] = { before: a, after: b };
      }
      return Object.keys(out).length > 0 ? out : undefined;
    },
    deleted: (record) =>
      Object.fromEntries(fields.map((f) => [f, { before: value(record, f), after: null }])),
  };
}

function value(record: object, field: string): unknown {
  const v: unknown = Reflect.get(record, field);
  return v instanceof Date ? v.toISOString() : (v ?? null);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
