import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A confirmation policy may now say `none`: a write tool (create, update, deactivate, …) runs
 * without asking unless its organisation chose `form`, `verified` or `approval` for it, and
 * setting it back to `none` is a change like any other (versioned, audited). Destructive tools
 * never take `none` (the API refuses it). The CHECK is replaced with one that also allows `none`:
 * `NOT VALID` first (no scan under the lock), then validated (a scan that lets writes go on).
 * `down` turns rows saying `none` back into what they meant before (no row: the tool's default).
 */
export class WriteToolPolicies1766000000000 implements MigrationInterface {
  name = 'WriteToolPolicies1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE mcp_confirmation_policies
        DROP CONSTRAINT ck_mcp_confirmation_policies_mode,
        ADD CONSTRAINT ck_mcp_confirmation_policies_mode
          CHECK (mode IN ('none', 'form', 'verified', 'approval')) NOT VALID`);
    await q.query(
      `ALTER TABLE mcp_confirmation_policies VALIDATE CONSTRAINT ck_mcp_confirmation_policies_mode`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM mcp_confirmation_policies WHERE mode = 'none'`);
    await q.query(`
      ALTER TABLE mcp_confirmation_policies
        DROP CONSTRAINT ck_mcp_confirmation_policies_mode,
        ADD CONSTRAINT ck_mcp_confirmation_policies_mode
          CHECK (mode IN ('form', 'verified', 'approval'))`);
  }
}
