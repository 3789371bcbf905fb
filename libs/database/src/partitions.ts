/**
 * Time partitions of the history tables (the MCP call history, the audit trail, the confirmation
 * ledger): native range partitioning on each table's time column, one partition per UTC day or
 * month, named `<table>_p<YYYYMMDD>` or `<table>_p<YYYYMM>`.
 *
 * There is no default partition, on purpose: a default partition forbids `DETACH PARTITION …
 * CONCURRENTLY`, and dropping an old partition without it takes an ACCESS EXCLUSIVE lock on the
 * whole table (every insert waits). Partitions are therefore made ahead, by the service
 * ({@link maintainPartitions}, under an advisory lock so one replica does it at a time) and by the
 * migration that introduced them; a row whose time has no partition is refused by the database.
 *
 * A new partition is created as a plain table and then attached: `ATTACH PARTITION` takes SHARE
 * UPDATE EXCLUSIVE on the parent (inserts and reads go on), where `CREATE TABLE … PARTITION OF`
 * would take ACCESS EXCLUSIVE. Migrations and the maintainer are the only code that names a
 * partition; repositories only ever name the parent table.
 */

export type PartitionUnit = 'day' | 'month';

/** A partitioned history table: its time column, the partition size and how far ahead to make them. */
export interface PartitionedTable {
  table: string;
  column: string;
  unit: PartitionUnit;
  /** Partitions kept ready beyond the current one (days or months). */
  ahead: number;
  /**
   * What the dropped rows leave behind elsewhere, forgotten after a round drops partitions: one
   * statement given the start of the oldest partition kept (`$1`).
   */
  afterDrop?: string;
}

/**
 * The call list's filter values (migration `ToolCallFilterValues1766100000000`, kept by a trigger)
 * last seen before the oldest day left: none of their calls remains. Locked first in the order the
 * trigger takes them (organisation, field, value), so the two never wait on each other the other
 * way round; a value seen again meanwhile has a newer day, re-checked on a row that had to be
 * waited for, and stays.
 */
const FORGET_AGED_FILTER_VALUES = `
  DELETE FROM mcp_tool_call_filter_values f
   USING (SELECT organization_id, field, value FROM mcp_tool_call_filter_values
           WHERE last_day < $1
           ORDER BY organization_id, field, value
             FOR UPDATE) aged
   WHERE f.organization_id = aged.organization_id AND f.field = aged.field AND f.value = aged.value
     AND f.last_day < $1`;

/**
 * The three partitioned tables. Calls come by the million a day: a day per partition keeps each
 * partition's indexes small and lets retention drop one day at a time. Audit events and
 * confirmations are a small fraction of that and audit is kept for years: a month per partition
 * keeps the partition count (and the planner's work per query) low.
 */
export const PARTITIONED_TABLES = [
  {
    table: 'mcp_tool_calls',
    column: 'created_at',
    unit: 'day',
    ahead: 14,
    afterDrop: FORGET_AGED_FILTER_VALUES,
  },
  { table: 'audit_events', column: 'occurred_at', unit: 'month', ahead: 2 },
  { table: 'mcp_confirmations', column: 'created_at', unit: 'month', ahead: 2 },
] as const satisfies readonly PartitionedTable[];

export type PartitionedTableName = (typeof PARTITIONED_TABLES)[number]['table'];

/** Runs one statement and answers its rows (a QueryRunner's, a DataSource's or a pg client's query). */
export type RunSql = (text: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;

/** One partition of a table: its name and `[from, to)` range. */
export interface Partition {
  name: string;
  from: Date;
  to: Date;
  /** A `DETACH … CONCURRENTLY` was interrupted: it must be finalized before the drop. */
  detachPending: boolean;
}

/** The start of the UTC day or month `at` falls in. */
export function unitStart(at: Date, unit: PartitionUnit): Date {
  return unit === 'day'
    ? new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()))
    : new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** `start` moved by `n` days or months (UTC). */
export function addUnits(start: Date, unit: PartitionUnit, n: number): Date {
  return unit === 'day'
    ? new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate() + n))
    : new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + n, 1));
}

/** `<table>_p20261204` (day) or `<table>_p202612` (month). */
export function partitionName(spec: PartitionedTable, start: Date): string {
  const digits = start.toISOString().slice(0, spec.unit === 'day' ? 10 : 7);
  return `${spec.table}_p${digits.replaceAll('-', '')}`;
}

/** The range a partition name stands for, or undefined for a name of another form. */
export function partitionRange(
  spec: PartitionedTable,
  name: string,
): { from: Date; to: Date } | undefined {
  const digits = spec.unit === 'day' ? 8 : 6;
  const match = new RegExp(`^${spec.table}_p(\\d{${digits}})$`).exec(name);
  if (match === null) return undefined;
  const d = match[1];
  const from = new Date(
    Date.UTC(
      Number(d.slice(0, 4)),
      Number(d.slice(4, 6)) - 1,
      digits === 8 ? Number(d.slice(6, 8)) : 1,
    ),
  );
  if (partitionName(spec, from) !== name) return undefined;
  return { from, to: addUnits(from, spec.unit, 1) };
}

/** The table's partitions of the `<table>_p…` form, oldest first. */
export async function listPartitions(sql: RunSql, spec: PartitionedTable): Promise<Partition[]> {
  const rows = await sql(
    `SELECT c.relname AS name, i.inhdetachpending AS pending
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = to_regclass($1)`,
    [spec.table],
  );
  const partitions: Partition[] = [];
  for (const row of rows) {
    const range = partitionRange(spec, String(row.name));
    if (range !== undefined) {
      partitions.push({ name: String(row.name), ...range, detachPending: row.pending === true });
    }
  }
  return partitions.sort((a, b) => a.from.getTime() - b.from.getTime());
}

/**
 * Makes the partition of `start` unless it exists: a plain table shaped like the parent (columns,
 * defaults, generated columns, checks), then attached; the attach adds the parent's indexes,
 * foreign keys and triggers. Answers whether it was created.
 */
export async function createPartition(
  sql: RunSql,
  spec: PartitionedTable,
  start: Date,
): Promise<boolean> {
  const name = partitionName(spec, start);
  const exists = await sql(`SELECT to_regclass($1) IS NOT NULL AS exists`, [name]);
  if (exists[0]?.exists === true) return false;
  const from = start.toISOString();
  const to = addUnits(start, spec.unit, 1).toISOString();
  await sql(
    `CREATE TABLE ${name} (LIKE ${spec.table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED)`,
  );
  await sql(
    `ALTER TABLE ${spec.table} ATTACH PARTITION ${name} FOR VALUES FROM ('${from}') TO ('${to}')`,
  );
  return true;
}

/** Every partition from the one holding `from` to the one holding `to`, both included; the names created. */
export async function createPartitionsCovering(
  sql: RunSql,
  spec: PartitionedTable,
  from: Date,
  to: Date,
): Promise<string[]> {
  const created: string[] = [];
  for (let s = unitStart(from, spec.unit); s <= to; s = addUnits(s, spec.unit, 1)) {
    if (await createPartition(sql, spec, s)) created.push(partitionName(spec, s));
  }
  return created;
}

/**
 * Detaches (without blocking inserts or reads: `CONCURRENTLY`, outside any transaction) and drops
 * one partition. A detach an earlier run left half done is finalized first.
 */
export async function dropPartition(
  sql: RunSql,
  spec: PartitionedTable,
  partition: Partition,
): Promise<void> {
  await sql(
    partition.detachPending
      ? `ALTER TABLE ${spec.table} DETACH PARTITION ${partition.name} FINALIZE`
      : `ALTER TABLE ${spec.table} DETACH PARTITION ${partition.name} CONCURRENTLY`,
  );
  await sql(`DROP TABLE ${partition.name}`);
}

/** Days of data each table keeps; 0 keeps everything (no partition is ever dropped). */
export type RetentionDays = Readonly<Record<PartitionedTableName, number>>;

/** What one maintenance round did to one table, and what the table covers afterwards. */
export interface TableMaintenance extends TableCoverage {
  created: string[];
  dropped: Partition[];
}

/** One advisory lock key for the maintenance of every history table (an arbitrary constant). */
const MAINTENANCE_LOCK = 7_261_204_028;

/**
 * One maintenance round: for each table, the partitions from the current day or month to
 * `spec.ahead` beyond it are made, and each partition wholly older than the table's retention is
 * dropped (never a DELETE). Only one session at a time does it (a session-level advisory lock;
 * the others answer `undefined` at once), so `sql` must run every statement on one connection.
 * `onDrop` hears of each drop as it happens (for the log and the metrics).
 */
export async function maintainPartitions(
  sql: RunSql,
  retention: RetentionDays,
  now: Date,
  onDrop: (table: PartitionedTableName, partition: Partition) => void = () => undefined,
): Promise<TableMaintenance[] | undefined> {
  const locked = await sql(`SELECT pg_try_advisory_lock($1) AS locked`, [MAINTENANCE_LOCK]);
  if (locked[0]?.locked !== true) return undefined;
  try {
    // Waiting for a lock (behind a long query) must not queue every insert behind us: give up
    // and try again at the next round instead.
    await sql(`SET lock_timeout = '5s'`);
    const report: TableMaintenance[] = [];
    for (const spec of PARTITIONED_TABLES) {
      const created = await createPartitionsCovering(
        sql,
        spec,
        now,
        addUnits(unitStart(now, spec.unit), spec.unit, spec.ahead),
      );
      const days = retention[spec.table];
      const dropped: Partition[] = [];
      if (days > 0) {
        const cutoff = now.getTime() - days * 86_400_000;
        for (const p of await listPartitions(sql, spec)) {
          if (p.to.getTime() > cutoff) break;
          await dropPartition(sql, spec, p);
          dropped.push(p);
          onDrop(spec.table, p);
        }
      }
      const left = await listPartitions(sql, spec);
      if ('afterDrop' in spec && dropped.length > 0 && left[0] !== undefined) {
        await sql(spec.afterDrop, [left[0].from.toISOString()]);
      }
      report.push({
        table: spec.table,
        created,
        dropped,
        oldestFrom: left[0]?.from,
        aheadUntil: left.at(-1)?.to,
      });
    }
    return report;
  } finally {
    await sql(`RESET lock_timeout`).catch(() => undefined);
    await sql(`SELECT pg_advisory_unlock($1)`, [MAINTENANCE_LOCK]).catch(() => undefined);
  }
}

/** What a table covers: from its oldest partition's start to its newest partition's end. */
export interface TableCoverage {
  table: PartitionedTableName;
  /** Nothing older exists. Undefined: the table has no partition at all. */
  oldestFrom?: Date;
  /** A row at or past it would be refused. */
  aheadUntil?: Date;
}

/** How far back (and ahead) each table's partitions go, read by anyone (no lock). */
export async function partitionCoverage(sql: RunSql): Promise<TableCoverage[]> {
  const out: TableCoverage[] = [];
  for (const spec of PARTITIONED_TABLES) {
    const parts = await listPartitions(sql, spec);
    out.push({ table: spec.table, oldestFrom: parts[0]?.from, aheadUntil: parts.at(-1)?.to });
  }
  return out;
}
