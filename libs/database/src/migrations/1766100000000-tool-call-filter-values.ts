import type { MigrationInterface, QueryRunner } from 'typeorm';
import { listPartitions, PARTITIONED_TABLES, type RunSql } from '../partitions.js';

/**
 * Records each (organisation, field, value) of `rows` with the last UTC day it has: a new value is
 * inserted, a known one moves its `last_day` forward (never back), in one statement. A value
 * already recorded for that day (nearly every one, nearly always) is passed over before the
 * insert: no lock, no write. The others go through `ON CONFLICT DO UPDATE`, which waits for a
 * concurrent insert of the same new value and then updates it, and inserts again a value deleted
 * meanwhile; it keeps their rows locked until the transaction ends, taken in one order
 * (organisation, field, value), so two transactions never wait on each other the other way round.
 */
function noteValuesOf(rows: string): string {
  return `
    INSERT INTO mcp_tool_call_filter_values AS f (organization_id, field, value, last_day)
      SELECT s.organization_id, s.field, s.value, s.day
        FROM (SELECT r.organization_id, v.field, v.value, max(date_trunc('day', r.created_at, 'UTC')) AS day
                FROM ${rows} r
                CROSS JOIN LATERAL (VALUES ('tool', r.tool), ('status', r.status), ('client_name', r.client_name))
                  AS v (field, value)
               WHERE v.value IS NOT NULL
               GROUP BY r.organization_id, v.field, v.value) s
       WHERE NOT EXISTS (SELECT 1 FROM mcp_tool_call_filter_values k
                          WHERE k.organization_id = s.organization_id AND k.field = s.field
                            AND k.value = s.value AND k.last_day >= s.day)
       ORDER BY s.organization_id, s.field, s.value
    ON CONFLICT (organization_id, field, value)
      DO UPDATE SET last_day = EXCLUDED.last_day WHERE f.last_day < EXCLUDED.last_day`;
}

/**
 * The values each organisation's calls have had in the list's low-cardinality filters (`tool`,
 * `status`, `client_name`) and the last UTC day each was seen, kept by the database itself.
 *
 * Those filters are trailing key columns of `(organization_id, created_at DESC, id DESC, tool,
 * status, client_name)` (migration `HistoryIndexes1765600000000`): a page reads index entries in
 * order and stops at its 51st match. For a value the organisation never had, there is no 51st
 * match: the page read every index entry of the organisation over the whole retention (1,648
 * buffers at 100,000 calls per organisation, 37–55 ms when those pages were not in shared buffers;
 * docs/benchmarks.md, "History at scale"). With this table the list bounds each such filter by the
 * value's last day (`created_at < last_day + 1 day`): no row, no bound satisfied, nothing read; a
 * value last seen weeks ago, only the partitions up to that day. An index per filter would have
 * done it too, for three more index insertions per call and the planning of three more indexes
 * per partition on every list.
 *
 * A statement-level trigger on the partitioned parent keeps the table, so every insert path
 * (the history writer's batches, a write tool's row in its own transaction, a migration, a hand
 * repair) keeps it true: one statement per inserting statement ({@link noteValuesOf}).
 * `maintainPartitions` deletes values last seen before the oldest partition left (none of their
 * calls remain; a value seen again meanwhile is re-checked by the DELETE or inserted again by the
 * trigger); until then a stale value bounds its filter before any data, which reads nothing.
 *
 * No transaction (`transaction = false`): the trigger is created first (a brief lock on the
 * parent; inserts after it keep the table), then the existing calls are summarised while inserts
 * go on, one partition (a day) per statement, newest first (docs/operations.md has its timing).
 * Rows go into `mcp_tool_calls` through the parent only (no code names a partition): a
 * statement-level trigger of the parent does not fire for an insert into a partition itself.
 */
export class ToolCallFilterValues1766100000000 implements MigrationInterface {
  name = 'ToolCallFilterValues1766100000000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS mcp_tool_call_filter_values (
        organization_id uuid NOT NULL,
        field text NOT NULL,
        value text NOT NULL,
        last_day timestamptz NOT NULL,
        CONSTRAINT pk_mcp_tool_call_filter_values PRIMARY KEY (organization_id, field, value),
        CONSTRAINT ck_mcp_tool_call_filter_values_field CHECK (field IN ('tool', 'status', 'client_name')),
        CONSTRAINT fk_mcp_tool_call_filter_values_organization FOREIGN KEY (organization_id)
          REFERENCES organizations (id) ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE OR REPLACE FUNCTION note_tool_call_filter_values() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${noteValuesOf('added')};
        RETURN NULL;
      END $$`);
    await q.query(`DROP TRIGGER IF EXISTS tr_mcp_tool_calls_filter_values ON mcp_tool_calls`);
    await q.query(`
      CREATE TRIGGER tr_mcp_tool_calls_filter_values
        AFTER INSERT ON mcp_tool_calls REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION note_tool_call_filter_values()`);
    // One partition (a day of calls) per statement: an insert meeting a value this statement has
    // just written waits for its commit, a fraction of a second, not for the whole history.
    const sql: RunSql = (text, params) => q.query(text, params);
    const calls = PARTITIONED_TABLES.find((t) => t.table === 'mcp_tool_calls')!;
    for (const partition of (await listPartitions(sql, calls)).toReversed()) {
      await q.query(noteValuesOf(partition.name));
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER IF EXISTS tr_mcp_tool_calls_filter_values ON mcp_tool_calls`);
    await q.query(`DROP FUNCTION IF EXISTS note_tool_call_filter_values()`);
    await q.query(`DROP TABLE IF EXISTS mcp_tool_call_filter_values`);
  }
}
