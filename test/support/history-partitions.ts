import { Client } from 'pg';
import { createPartitionsCovering, PARTITIONED_TABLES, type RunSql } from '@app/database';

/** A {@link RunSql} over a pg client (every statement on that one connection). */
export function runSqlOn(client: Client): RunSql {
  return async (text, params) => (await client.query(text, params)).rows;
}

/**
 * Makes the partitions of every history table from `from` to `to` (ISO 8601), for a test that
 * writes rows at fixed past or future times: the migration and the service make them only around
 * the present, and the database refuses a row whose time has no partition.
 */
export async function coverHistory(url: string, from: string, to: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    for (const spec of PARTITIONED_TABLES) {
      await createPartitionsCovering(runSqlOn(client), spec, new Date(from), new Date(to));
    }
  } finally {
    await client.end();
  }
}

/**
 * Each partition's index name → the partitioned index it belongs to (`ix_…`), so a plan that reads
 * `mcp_tool_calls_p20260101_organization_id_tool_created_at_id_idx` can be checked as the index
 * the migration declared.
 */
export async function partitionIndexParents(url: string): Promise<Map<string, string>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ part: string; parent: string }>(
      `SELECT c.relname AS part, p.relname AS parent
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
        WHERE p.relkind = 'I'`,
    );
    return new Map(rows.map((r) => [r.part, r.parent]));
  } finally {
    await client.end();
  }
}
