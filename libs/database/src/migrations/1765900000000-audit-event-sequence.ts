import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The order audit events were written in. `occurred_at` (`clock_timestamp()`) ties when two events
 * fall in one clock tick: a microsecond on Postgres, a whole millisecond on the embedded engine,
 * where a confirmation's `confirmed` and `executed` (or a tool's own event between them) often
 * share one, so a chain read oldest first came back in the order of random ids. `seq` is drawn
 * from a sequence as each row is inserted, and the chain reads (a confirmation's, a request's)
 * order by `(occurred_at, seq, id)`. The keyset lists keep their `(occurred_at, id)` cursor.
 *
 * Adding a column with no default rewrites nothing; the default then applies to new rows only,
 * so a table of millions of rows is altered without a long lock. Rows written before keep NULL
 * (ordered after the numbered ones of the same instant, then by id, as before).
 */
export class AuditEventSequence1765900000000 implements MigrationInterface {
  name = 'AuditEventSequence1765900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SEQUENCE audit_events_seq AS bigint`);
    await q.query(`ALTER TABLE audit_events ADD COLUMN seq bigint`);
    await q.query(
      `ALTER TABLE audit_events ALTER COLUMN seq SET DEFAULT nextval('audit_events_seq')`,
    );
    await q.query(`ALTER SEQUENCE audit_events_seq OWNED BY audit_events.seq`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_events DROP COLUMN seq`);
    await q.query(`DROP SEQUENCE IF EXISTS audit_events_seq`);
  }
}
