import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Confirmation policy `verified` (ADR 0012): the person who authorized the client confirms on this
 * server's own page, and the client's retry uses that decision once. The ledger keeps its one
 * rule for "runs once" (the conditional `pending` → `consumed` UPDATE); these columns say which
 * kind of question a row is and what the page recorded:
 *
 * - `mode`: `form` (the client's own form answered it; every row before this migration) or
 *   `verified` (only the page can confirm it);
 * - `policy_version`: the version of the tool's confirmation policy it was asked under, so the
 *   page and the retry refuse a decision made under another one;
 * - `verified_at`: when the person confirmed on the page (the row stays `pending` until the
 *   retry consumes it; a decline on the page is `declined` like any other);
 * - `reported_at`: when a 2025-11-25 client's retry (which carries no `requestState`) was told
 *   of the page's decline, so it is told once and the next call asks again.
 *
 * The status vocabulary and its constraints are unchanged (the partitions carry copies of them).
 * The partial index serves the 2025-11-25 retry, which finds its row by the call's binding.
 */
export class VerifiedConfirmations1765700000000 implements MigrationInterface {
  name = 'VerifiedConfirmations1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE mcp_confirmations
        ADD COLUMN mode text NOT NULL DEFAULT 'form',
        ADD COLUMN policy_version integer NOT NULL DEFAULT 0,
        ADD COLUMN verified_at timestamptz,
        ADD COLUMN reported_at timestamptz`);
    await q.query(
      `ALTER TABLE mcp_confirmations ADD CONSTRAINT ck_mcp_confirmations_mode CHECK (mode IN ('form', 'verified'))`,
    );
    await q.query(
      `ALTER TABLE mcp_confirmations ADD CONSTRAINT ck_mcp_confirmations_verified CHECK ((verified_at IS NULL AND reported_at IS NULL) OR mode = 'verified')`,
    );
    await q.query(
      `CREATE INDEX ix_mcp_confirmations_verified_binding ON mcp_confirmations (token_id, arguments_digest, created_at DESC) WHERE mode = 'verified'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_mcp_confirmations_verified_binding`);
    // Dropping the columns drops every copy of the two constraints (they name these columns).
    await q.query(`
      ALTER TABLE mcp_confirmations
        DROP COLUMN reported_at,
        DROP COLUMN verified_at,
        DROP COLUMN policy_version,
        DROP COLUMN mode`);
  }
}
