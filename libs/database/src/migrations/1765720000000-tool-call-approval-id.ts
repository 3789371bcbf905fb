import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The approval request (ADR 0011) a tool call ran under or was refused for (`approval_pending`,
 * `approval_denied`, `approval_expired`, a replayed approval): without it the call history could not
 * say which request let a delete run, nor which calls waited on a request.
 *
 * On the partitioned parent: Postgres adds the column to every partition, present and attached
 * later, and a nullable column without a default rewrites none of them (a catalogue change only).
 * No foreign key (the request is the approvals library's row, and `mcp_approvals` is not
 * partitioned with the history) and no index: the `?approval_id=` filter always runs within one
 * organisation and time range, on the `(organization_id, created_at DESC, id DESC, …)` index
 * (docs/benchmarks.md, "History indexes").
 */
export class ToolCallApprovalId1765720000000 implements MigrationInterface {
  name = 'ToolCallApprovalId1765720000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mcp_tool_calls ADD COLUMN approval_id uuid`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mcp_tool_calls DROP COLUMN approval_id`);
  }
}
