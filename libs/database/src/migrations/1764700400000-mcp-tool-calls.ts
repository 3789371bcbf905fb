import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per MCP tools/call: what agents did, for admins (`GET /v1/mcp/tool-calls`).
 *
 * Every list index leads with `organization_id`, then the filtered column, then the list's keyset
 * order `(created_at DESC, id DESC)`, so a filtered page is one index range read in order and stops
 * after `limit + 1` rows (no sort, whatever the organisation's history size). The time range
 * (`since`/`until`) is a range on `created_at` inside the same indexes.
 */
export class McpToolCalls1764700400000 implements MigrationInterface {
  name = 'McpToolCalls1764700400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mcp_tool_calls (
        id uuid NOT NULL,
        organization_id uuid NOT NULL,
        token_id uuid NOT NULL,
        user_id uuid NOT NULL,
        tool text NOT NULL,
        client_name text,
        era text NOT NULL,
        protocol_version text NOT NULL,
        status text NOT NULL,
        is_error boolean NOT NULL,
        duration_ms double precision NOT NULL,
        confirmation_id uuid,
        request_id text NOT NULL,
        arguments_digest text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_mcp_tool_calls PRIMARY KEY (id),
        CONSTRAINT fk_mcp_tool_calls_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
        CONSTRAINT ck_mcp_tool_calls_era CHECK (era IN ('2025', '2026-07-28'))
      )`);
    await q.query(
      `CREATE INDEX ix_mcp_tool_calls_org_created ON mcp_tool_calls (organization_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_mcp_tool_calls_org_tool ON mcp_tool_calls (organization_id, tool, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_mcp_tool_calls_org_status ON mcp_tool_calls (organization_id, status, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_mcp_tool_calls_org_user ON mcp_tool_calls (organization_id, user_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_mcp_tool_calls_org_token ON mcp_tool_calls (organization_id, token_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_mcp_tool_calls_org_client ON mcp_tool_calls (organization_id, client_name, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_mcp_tool_calls_confirmation ON mcp_tool_calls (confirmation_id) WHERE confirmation_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_mcp_tool_calls_confirmation`);
    await q.query(`DROP INDEX ix_mcp_tool_calls_org_client`);
    await q.query(`DROP INDEX ix_mcp_tool_calls_org_token`);
    await q.query(`DROP INDEX ix_mcp_tool_calls_org_user`);
    await q.query(`DROP INDEX ix_mcp_tool_calls_org_status`);
    await q.query(`DROP INDEX ix_mcp_tool_calls_org_tool`);
    await q.query(`DROP INDEX ix_mcp_tool_calls_org_created`);
    await q.query(`DROP TABLE mcp_tool_calls`);
  }
}
