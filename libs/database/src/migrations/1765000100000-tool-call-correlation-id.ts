import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The client's own `X-Request-Id` of a tool call, kept as a correlation field. `request_id` is
 * now always an id the server issued: a client's id was adopted as the request id, so two people
 * sending the same one had their calls and audit events linked to each other. Rows written before
 * may hold a client's id in `request_id`; it stays there (it cannot be told from ours).
 */
export class ToolCallCorrelationId1765000100000 implements MigrationInterface {
  name = 'ToolCallCorrelationId1765000100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mcp_tool_calls ADD COLUMN correlation_id text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mcp_tool_calls DROP COLUMN correlation_id`);
  }
}
