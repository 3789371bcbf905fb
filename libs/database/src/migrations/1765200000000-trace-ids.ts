import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One id from the agent's request to the database: a tool call's history row and each audit
 * event it wrote keep the trace id of the request (null when nothing was traced), so the console
 * links a call to its trace and a trace leads back to the call.
 */
export class TraceIds1765200000000 implements MigrationInterface {
  name = 'TraceIds1765200000000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ['mcp_tool_calls', 'audit_events']) {
      await q.query(
        `ALTER TABLE ${table} ADD COLUMN trace_id text
           CONSTRAINT ck_${table}_trace_id CHECK (trace_id ~ '^[0-9a-f]{32}$')`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['audit_events', 'mcp_tool_calls'])
      await q.query(`ALTER TABLE ${table} DROP COLUMN trace_id`);
  }
}
