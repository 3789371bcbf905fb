import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { RunSql } from '../partitions.js';

/** An index of a partitioned table: the parent's name and its columns. */
export interface IndexSpec {
  name: string;
  table: string;
  columns: string;
  /** A partial index's predicate. */
  where?: string;
}

/**
 * Each list sorts newest first by `(<time>, id)` within an organisation; one index per table whose
 * key starts `(organization_id, <time> DESC, id DESC)` and carries the low-cardinality filters as
 * trailing key columns serves the unfiltered list and every such filter: Postgres checks a
 * condition on a trailing key column inside the index (`Index Cond`), so a page reads index entries
 * in order and visits the table only for the rows it returns. The selective filters (a person, a
 * token, an audited resource) keep an index that leads with them, so a value with few rows is found
 * without walking the organisation's history. docs/benchmarks.md ("History indexes") has the plans
 * at 2 million calls and 1 million audit events that chose these.
 */
export const CREATED: IndexSpec[] = [
  {
    name: 'ix_mcp_tool_calls_org_created_filters',
    table: 'mcp_tool_calls',
    columns: 'organization_id, created_at DESC, id DESC, tool, status, client_name',
  },
  {
    name: 'ix_audit_events_org_occurred_filters',
    table: 'audit_events',
    columns: 'organization_id, occurred_at DESC, id DESC, action, channel, resource_type',
  },
  {
    name: 'ix_mcp_confirmations_org_created_filters',
    table: 'mcp_confirmations',
    columns: 'organization_id, created_at DESC, id DESC, status, tool',
  },
  {
    // The person filter of the list (the organisation checked on the row) and the user foreign
    // key's ON DELETE CASCADE, which the old `(user_id)` index served alone.
    name: 'ix_mcp_confirmations_user_created',
    table: 'mcp_confirmations',
    columns: 'user_id, created_at DESC, id DESC',
  },
];

/** The indexes the ones above replace, as the earlier migrations made them (for `down`). */
export const DROPPED: IndexSpec[] = [
  {
    name: 'ix_mcp_tool_calls_org_created',
    table: 'mcp_tool_calls',
    columns: 'organization_id, created_at DESC, id DESC',
  },
  {
    name: 'ix_mcp_tool_calls_org_tool',
    table: 'mcp_tool_calls',
    columns: 'organization_id, tool, created_at DESC, id DESC',
  },
  {
    name: 'ix_mcp_tool_calls_org_status',
    table: 'mcp_tool_calls',
    columns: 'organization_id, status, created_at DESC, id DESC',
  },
  {
    name: 'ix_mcp_tool_calls_org_client',
    table: 'mcp_tool_calls',
    columns: 'organization_id, client_name, created_at DESC, id DESC',
  },
  // No statement reads the call history by confirmation (the link is read from the call's row).
  {
    name: 'ix_mcp_tool_calls_confirmation',
    table: 'mcp_tool_calls',
    columns: 'confirmation_id',
    where: 'confirmation_id IS NOT NULL',
  },
  {
    name: 'ix_audit_events_org_occurred',
    table: 'audit_events',
    columns: 'organization_id, occurred_at DESC, id DESC',
  },
  {
    name: 'ix_audit_events_org_action',
    table: 'audit_events',
    columns: 'organization_id, action, occurred_at DESC, id DESC',
  },
  {
    name: 'ix_mcp_confirmations_org_created',
    table: 'mcp_confirmations',
    columns: 'organization_id, created_at DESC, id DESC',
  },
  {
    name: 'ix_mcp_confirmations_org_status',
    table: 'mcp_confirmations',
    columns: 'organization_id, status, created_at DESC, id DESC',
  },
  {
    name: 'ix_mcp_confirmations_org_tool',
    table: 'mcp_confirmations',
    columns: 'organization_id, tool, created_at DESC, id DESC',
  },
  {
    name: 'ix_mcp_confirmations_org_user',
    table: 'mcp_confirmations',
    columns: 'organization_id, user_id, created_at DESC, id DESC',
  },
  { name: 'ix_mcp_confirmations_user', table: 'mcp_confirmations', columns: 'user_id' },
];

/**
 * The fewest indexes that serve every filter of the call history, the audit trail and the
 * confirmation ledger (see {@link CREATED}): 8 → 4 indexes on `mcp_tool_calls`, 8 → 7 on
 * `audit_events`, 8 → 5 on `mcp_confirmations`.
 *
 * Built without stopping writes: the parent's index is made `ON ONLY` the partitioned table
 * (invalid, no partition scanned), then each partition's index `CONCURRENTLY` and attached to
 * it; the parent's index is valid once every partition has its own. A partition attached
 * meanwhile (the maintainer makes them ahead) gets its index from the attach. Only then are the
 * old indexes dropped (a `DROP INDEX` is a short exclusive lock, no scan). Each step is
 * idempotent, so an interrupted run resumes. Not in a transaction (`CONCURRENTLY` refuses one).
 */
export class HistoryIndexes1765600000000 implements MigrationInterface {
  name = 'HistoryIndexes1765600000000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    const sql: RunSql = (text, params) => q.query(text, params);
    for (const index of CREATED) await createOnPartitions(q, sql, index);
    await sql(`DROP INDEX IF EXISTS ${DROPPED.map((i) => i.name).join(', ')}`);
  }

  async down(q: QueryRunner): Promise<void> {
    const sql: RunSql = (text, params) => q.query(text, params);
    for (const index of DROPPED) await createOnPartitions(q, sql, index);
    await sql(`DROP INDEX IF EXISTS ${CREATED.map((i) => i.name).join(', ')}`);
  }
}

/**
 * `index` on the partitioned table and each of its partitions. Inside a transaction (TypeORM runs
 * every revert in one, whatever the migration says) a plain `CREATE INDEX` on the parent builds
 * them all, holding a SHARE lock on each partition (writes wait) until the transaction ends.
 */
async function createOnPartitions(q: QueryRunner, sql: RunSql, index: IndexSpec): Promise<void> {
  const definition = `(${index.columns})${index.where === undefined ? '' : ` WHERE ${index.where}`}`;
  if (q.isTransactionActive) {
    await sql(`CREATE INDEX IF NOT EXISTS ${index.name} ON ${index.table} ${definition}`);
    return;
  }
  await sql(`CREATE INDEX IF NOT EXISTS ${index.name} ON ONLY ${index.table} ${definition}`);
  const partitions = await sql(
    `SELECT c.relname AS name,
            (SELECT x.indexrelid::regclass::text FROM pg_inherits h JOIN pg_index x ON x.indexrelid = h.inhrelid
              WHERE h.inhparent = $2::regclass AND x.indrelid = c.oid) AS attached
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass ORDER BY c.relname`,
    [index.table, index.name],
  );
  for (const p of partitions) {
    if (p.attached !== null) continue;
    const partition = String(p.name);
    // `<partition>_<index name without its ix_<table>_ prefix>`, within Postgres' 63 characters.
    const name = `${partition}_${index.name.replace(`ix_${index.table}_`, '')}`.slice(0, 63);
    const existing = await sql(
      `SELECT x.indisvalid AS valid FROM pg_index x WHERE x.indexrelid = to_regclass($1)`,
      [name],
    );
    // An interrupted CONCURRENTLY build leaves an invalid index behind: build it again.
    if (existing[0] !== undefined && existing[0].valid !== true) await sql(`DROP INDEX ${name}`);
    if (existing[0] === undefined || existing[0].valid !== true) {
      await sql(`CREATE INDEX CONCURRENTLY ${name} ON ${partition} ${definition}`);
    }
    await sql(`ALTER INDEX ${index.name} ATTACH PARTITION ${name}`);
  }
}
