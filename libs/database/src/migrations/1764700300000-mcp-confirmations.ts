import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The confirmation ledger of destructive MCP tools: one row per confirmation asked, consumed at
 * most once by a conditional UPDATE (`status = 'pending'` → `consumed` | `declined` | `expired`).
 *
 * `decided_at` is set only by a person's decision (consumed or declined); an expired row keeps it
 * null (its `expires_at` says when it lapsed). `tool_call_id` names the MCP call the confirmation
 * authorized (no foreign key: the call history table belongs to another library and its row is
 * written after the consumption).
 */
export class McpConfirmations1764700300000 implements MigrationInterface {
  name = 'McpConfirmations1764700300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mcp_confirmations (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        token_id uuid NOT NULL,
        user_id uuid NOT NULL,
        tool text NOT NULL,
        arguments_digest text NOT NULL,
        target_type text NOT NULL,
        target_id text NOT NULL,
        message text NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        protocol_version text NOT NULL,
        client_name text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        decided_at timestamptz,
        tool_call_id uuid,
        request_id text NOT NULL,
        CONSTRAINT pk_mcp_confirmations PRIMARY KEY (id),
        CONSTRAINT uq_mcp_confirmations_tool_call UNIQUE (tool_call_id),
        CONSTRAINT fk_mcp_confirmations_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
        CONSTRAINT fk_mcp_confirmations_token FOREIGN KEY (token_id) REFERENCES api_tokens (id) ON DELETE CASCADE,
        CONSTRAINT fk_mcp_confirmations_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
        CONSTRAINT ck_mcp_confirmations_status CHECK (status IN ('pending', 'consumed', 'declined', 'expired')),
        CONSTRAINT ck_mcp_confirmations_arguments_digest CHECK (arguments_digest ~ '^[0-9a-f]{64}$'),
        CONSTRAINT ck_mcp_confirmations_expiry CHECK (expires_at > created_at),
        CONSTRAINT ck_mcp_confirmations_decided CHECK ((decided_at IS NOT NULL) = (status IN ('consumed', 'declined'))),
        CONSTRAINT ck_mcp_confirmations_tool_call CHECK (tool_call_id IS NULL OR status = 'consumed')
      )`);
    await q.query(
      `CREATE INDEX ix_mcp_confirmations_org_created ON mcp_confirmations (organization_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_mcp_confirmations_org_status ON mcp_confirmations (organization_id, status, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_mcp_confirmations_org_tool ON mcp_confirmations (organization_id, tool, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_mcp_confirmations_org_user ON mcp_confirmations (organization_id, user_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_mcp_confirmations_token ON mcp_confirmations (token_id, created_at DESC)`,
    );
    await q.query(`CREATE INDEX ix_mcp_confirmations_user ON mcp_confirmations (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_mcp_confirmations_user`);
    await q.query(`DROP INDEX ix_mcp_confirmations_token`);
    await q.query(`DROP INDEX ix_mcp_confirmations_org_user`);
    await q.query(`DROP INDEX ix_mcp_confirmations_org_tool`);
    await q.query(`DROP INDEX ix_mcp_confirmations_org_status`);
    await q.query(`DROP INDEX ix_mcp_confirmations_org_created`);
    await q.query(`DROP TABLE mcp_confirmations`);
  }
}
