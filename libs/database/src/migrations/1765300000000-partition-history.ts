import type { MigrationInterface, QueryRunner } from 'typeorm';
import {
  addUnits,
  createPartitionsCovering,
  PARTITIONED_TABLES,
  unitStart,
  type PartitionedTable,
  type RunSql,
} from '../partitions.js';

/** Blocks of the old table copied per statement (8 kB each: about 16 MB, some 50k rows). */
const BACKFILL_BLOCKS = 2_000;

/**
 * The call history, the audit trail and the confirmation ledger become range-partitioned on their
 * time column (see `partitions.ts`), without holding a long lock on a deployment's data:
 *
 * 1. one short transaction per table renames it to `<table>_unpartitioned`, creates the
 *    partitioned table in its place from the old one's definition (`LIKE`: every column whatever
 *    earlier migrations added, defaults, generated columns, checks; then its keys, foreign keys,
 *    indexes and triggers, read from the catalogue), and the partitions of the present and ahead.
 *    From its commit on, every write goes to the new table; the past partitions, back to the
 *    oldest row's day or month, are attached after it (an attach does not stop writes);
 * 2. the old rows are copied in block ranges of the old table (`ctid` ranges, one statement and
 *    one short transaction each; nothing writes the old table any more), then it is dropped. Lists
 *    lack the not yet copied rows for that while (docs/operations.md gives the time at 1 million
 *    rows). Each step is idempotent, so an interrupted run resumes where it stopped.
 *
 * Postgres requires every unique key of a partitioned table to include the partition column: the
 * primary keys become `(id, <time>)` (ids are random UUIDs and a row's time never changes, so
 * an id still names one row), and the confirmation ledger's `UNIQUE (tool_call_id)` becomes
 * `UNIQUE (tool_call_id, created_at)`; a consumed confirmation names its call once by the
 * ledger's conditional UPDATE, which does not rely on that key.
 *
 * Not in a transaction of its own (`transaction = false`): the steps commit one by one.
 */
export class PartitionHistory1765300000000 implements MigrationInterface {
  name = 'PartitionHistory1765300000000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    const sql: RunSql = (text, params) => q.query(text, params);
    for (const spec of PARTITIONED_TABLES) {
      if (!(await isPartitioned(sql, spec.table))) await swapIn(q, sql, spec);
      await backfill(sql, spec);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    const sql: RunSql = (text, params) => q.query(text, params);
    for (const spec of PARTITIONED_TABLES) {
      if (!(await isPartitioned(sql, spec.table))) continue;
      await inTransaction(q, async () => {
        const old = `${spec.table}_partitioned`;
        await sql(`ALTER TABLE ${spec.table} RENAME TO ${old}`);
        const definition = await readDefinition(sql, old);
        await dropKeysAndIndexes(sql, old, definition);
        await sql(
          `CREATE TABLE ${spec.table} (LIKE ${old} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED)`,
        );
        await recreate(sql, spec.table, old, definition, (cols) =>
          cols.filter((c) => c !== spec.column),
        );
        const cols = await storedColumns(sql, old);
        await sql(`INSERT INTO ${spec.table} (${cols}) SELECT ${cols} FROM ${old}`);
        await sql(`DROP TABLE ${old}`);
      });
    }
  }
}

async function inTransaction(q: QueryRunner, work: () => Promise<void>): Promise<void> {
  await q.startTransaction();
  try {
    await work();
    await q.commitTransaction();
  } catch (err) {
    await q.rollbackTransaction();
    throw err;
  }
}

async function isPartitioned(sql: RunSql, table: string): Promise<boolean> {
  const rows = await sql(`SELECT relkind FROM pg_class WHERE oid = to_regclass($1)`, [table]);
  return rows[0]?.relkind === 'p';
}

/** A table's keys, foreign keys, other indexes and triggers, as the catalogue describes them. */
interface Definition {
  keys: Array<{ name: string; kind: 'PRIMARY KEY' | 'UNIQUE'; columns: string[] }>;
  foreignKeys: Array<{ name: string; def: string }>;
  indexes: Array<{ name: string; def: string }>;
  triggers: Array<{ def: string }>;
}

async function readDefinition(sql: RunSql, table: string): Promise<Definition> {
  const keys = await sql(
    `SELECT c.conname AS name, c.contype AS type,
            ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, o)
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o) AS columns
       FROM pg_constraint c WHERE c.conrelid = $1::regclass AND c.contype IN ('p', 'u') ORDER BY c.conname`,
    [table],
  );
  const foreignKeys = await sql(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS def
       FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f' ORDER BY conname`,
    [table],
  );
  const indexes = await sql(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = $1::regclass
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = i.indrelid)
      ORDER BY c.relname`,
    [table],
  );
  const triggers = await sql(
    `SELECT pg_get_triggerdef(oid) AS def FROM pg_trigger
      WHERE tgrelid = $1::regclass AND NOT tgisinternal AND tgparentid = 0 ORDER BY tgname`,
    [table],
  );
  return {
    keys: keys.map((k) => ({
      name: String(k.name),
      kind: k.type === 'p' ? 'PRIMARY KEY' : 'UNIQUE',
      columns: Array.isArray(k.columns) ? k.columns.map(String) : [],
    })),
    foreignKeys: foreignKeys.map((f) => ({ name: String(f.name), def: String(f.def) })),
    indexes: indexes.map((i) => ({ name: String(i.name), def: String(i.def) })),
    triggers: triggers.map((t) => ({ def: String(t.def) })),
  };
}

/** Frees the key and index names (they are schema-wide) for the table that takes the old one's place. */
async function dropKeysAndIndexes(sql: RunSql, table: string, d: Definition): Promise<void> {
  for (const k of d.keys) await sql(`ALTER TABLE ${table} DROP CONSTRAINT ${k.name}`);
  for (const i of d.indexes) await sql(`DROP INDEX ${i.name}`);
}

/** `def` (an index or trigger definition of `from`; a partitioned table's index is `ON ONLY`) made about `to`. */
function retarget(def: string, from: string, to: string): string {
  return def.replace(new RegExp(` ON (ONLY )?(public\\.)?${from} `), ` ON ${to} `);
}

/** Adds `d` to `table` (its keys' columns passed through `keyColumns`). */
async function recreate(
  sql: RunSql,
  table: string,
  from: string,
  d: Definition,
  keyColumns: (columns: string[]) => string[],
): Promise<void> {
  for (const k of d.keys) {
    await sql(
      `ALTER TABLE ${table} ADD CONSTRAINT ${k.name} ${k.kind} (${keyColumns(k.columns).join(', ')})`,
    );
  }
  for (const f of d.foreignKeys)
    await sql(`ALTER TABLE ${table} ADD CONSTRAINT ${f.name} ${f.def}`);
  for (const i of d.indexes) await sql(retarget(i.def, from, table));
  for (const t of d.triggers) await sql(retarget(t.def, from, table));
}

/** The columns a row is copied by: every stored column (generated ones compute themselves). */
async function storedColumns(sql: RunSql, table: string): Promise<string> {
  const rows = await sql(
    `SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) AS cols FROM pg_attribute
      WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''`,
    [table],
  );
  return String(rows[0]?.cols);
}

/** Step 1: the partitioned table takes the old one's name, in one short transaction. */
async function swapIn(q: QueryRunner, sql: RunSql, spec: PartitionedTable): Promise<void> {
  const legacy = `${spec.table}_unpartitioned`;
  // Read before the swap (a scan of the table, no lock held); rows written meanwhile are current.
  const span = await sql(
    `SELECT min(${spec.column}) AS oldest, max(${spec.column}) AS newest FROM ${spec.table}`,
  );
  const now = new Date();
  const oldest = span[0]?.oldest instanceof Date ? span[0].oldest : now;
  const newest = span[0]?.newest instanceof Date ? span[0].newest : now;
  const ahead = addUnits(unitStart(now, spec.unit), spec.unit, spec.ahead);
  await inTransaction(q, async () => {
    await sql(`ALTER TABLE ${spec.table} RENAME TO ${legacy}`);
    const definition = await readDefinition(sql, legacy);
    await dropKeysAndIndexes(sql, legacy, definition);
    await sql(
      `CREATE TABLE ${spec.table} (LIKE ${legacy} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED)
         PARTITION BY RANGE (${spec.column})`,
    );
    await recreate(sql, spec.table, legacy, definition, (cols) =>
      cols.includes(spec.column) ? cols : [...cols, spec.column],
    );
    // Only the present and the days ahead while writes wait for this transaction's lock.
    await createPartitionsCovering(sql, spec, now, newest > ahead ? newest : ahead);
  });
  // The past ones for the copy: each attach takes only SHARE UPDATE EXCLUSIVE, writes go on.
  if (oldest < now) await createPartitionsCovering(sql, spec, oldest, now);
}

/** Step 2: the old rows, block range by block range, then the old table goes. */
async function backfill(sql: RunSql, spec: PartitionedTable): Promise<void> {
  const legacy = `${spec.table}_unpartitioned`;
  const exists = await sql(`SELECT to_regclass($1) IS NOT NULL AS exists`, [legacy]);
  if (exists[0]?.exists !== true) return;
  const cols = await storedColumns(sql, legacy);
  const size = await sql(
    `SELECT (pg_relation_size($1::regclass) / current_setting('block_size')::int)::int AS blocks`,
    [legacy],
  );
  const blocks = Number(size[0]?.blocks ?? 0);
  for (let from = 0; from < blocks; from += BACKFILL_BLOCKS) {
    // ON CONFLICT: a range copied before an interruption is skipped row by row.
    await sql(
      `INSERT INTO ${spec.table} (${cols}) SELECT ${cols} FROM ${legacy}
        WHERE ctid >= '(${from},0)'::tid AND ctid < '(${from + BACKFILL_BLOCKS},0)'::tid
       ON CONFLICT DO NOTHING`,
    );
  }
  await sql(`DROP TABLE ${legacy}`);
}
