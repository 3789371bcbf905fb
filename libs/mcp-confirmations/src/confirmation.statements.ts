import type { DataSource, EntityManager, QueryResult } from 'typeorm';
import { changeOf, type ChangeRecorder } from './confirmation-events.js';
import { toConfirmation, type ConfirmationRow } from './confirmation.row.js';
import type { McpConfirmation } from './mcp-confirmation.js';

/** A confirmation id the database could parse; anything else is refused before a statement. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * How the ledger's statements reach the database: one statement on a pooled connection or in the
 * caller's transaction, and a state change that commits with what it records (its audit events)
 * in one transaction, or not at all. Built by {@link ConfirmationLedger} on the app's connection.
 */
export class ConfirmationStatements {
  constructor(private readonly ds: DataSource) {}

  /**
   * One state change (`sql` returns the changed rows' `CONFIRMATION_COLUMNS`): with a
   * recorder, in a transaction with what it records for each changed row (what the row became,
   * {@link changeOf}). The changed rows.
   */
  async change(
    record: ChangeRecorder | undefined,
    sql: string,
    params: unknown[],
  ): Promise<McpConfirmation[]> {
    if (record === undefined) return (await this.run(sql, params)).records.map(toConfirmation);
    return this.ds.transaction(async (tx) => {
      const rows = (await this.run(sql, params, tx)).records.map(toConfirmation);
      for (const row of rows) await record(changeOf(row), row, tx);
      return rows;
    });
  }

  /** One statement: on `manager`'s connection when given (its transaction), else a pooled one. */
  async run<Row = ConfirmationRow>(
    sql: string,
    params: unknown[],
    manager?: EntityManager,
  ): Promise<QueryResult<Row>> {
    const shared = manager?.queryRunner;
    if (shared !== undefined) {
      const result: QueryResult<Row> = await shared.query(sql, params, true);
      return result;
    }
    const runner = this.ds.createQueryRunner();
    try {
      const result: QueryResult<Row> = await runner.query(sql, params, true);
      return result;
    } finally {
      await runner.release();
    }
  }
}
