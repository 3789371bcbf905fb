import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tasks of the MCP tasks extension (`io.modelcontextprotocol/tasks`, ADR 0013): one row per task,
 * owned by the person and organisation whose token created it, readable by any replica.
 * `working` → `input_required` ⇄ `working` → `completed` (the tool result inlined, tool errors
 * included) | `failed` (a JSON-RPC error object) | `cancelled`. A task of a call under the
 * `approval` policy names its approval request. `claimed_until`: the lease of the one replica
 * that is advancing the task (running the tool), so concurrent polls never run it twice. Rows are
 * kept until `expires_at` (creation + the task's `ttl_ms`), then swept.
 */
export class McpTasks1765710000000 implements MigrationInterface {
  name = 'McpTasks1765710000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mcp_tasks (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        token_id uuid NOT NULL,
        tool text NOT NULL,
        arguments jsonb NOT NULL,
        approval_id uuid,
        status text NOT NULL DEFAULT 'working',
        status_message text,
        input_requests jsonb,
        input_responses jsonb NOT NULL DEFAULT '{}'::jsonb,
        result jsonb,
        error jsonb,
        ttl_ms integer NOT NULL,
        poll_interval_ms integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_updated_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        claimed_until timestamptz,
        CONSTRAINT pk_mcp_tasks PRIMARY KEY (id),
        CONSTRAINT fk_mcp_tasks_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
        CONSTRAINT fk_mcp_tasks_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
        CONSTRAINT fk_mcp_tasks_token FOREIGN KEY (token_id) REFERENCES api_tokens (id) ON DELETE CASCADE,
        CONSTRAINT fk_mcp_tasks_approval FOREIGN KEY (approval_id) REFERENCES mcp_approvals (id) ON DELETE CASCADE,
        CONSTRAINT ck_mcp_tasks_status CHECK (status IN ('working', 'input_required', 'completed', 'failed', 'cancelled')),
        CONSTRAINT ck_mcp_tasks_result CHECK ((result IS NOT NULL) = (status = 'completed')),
        CONSTRAINT ck_mcp_tasks_error CHECK ((error IS NOT NULL) = (status = 'failed')),
        CONSTRAINT ck_mcp_tasks_input CHECK ((input_requests IS NOT NULL) = (status = 'input_required')),
        CONSTRAINT ck_mcp_tasks_ttl CHECK (ttl_ms > 0 AND poll_interval_ms > 0)
      )`);
    await q.query(`CREATE INDEX ix_mcp_tasks_expires ON mcp_tasks (expires_at)`);
    await q.query(`CREATE INDEX ix_mcp_tasks_organization ON mcp_tasks (organization_id)`);
    await q.query(`CREATE INDEX ix_mcp_tasks_user ON mcp_tasks (user_id)`);
    await q.query(`CREATE INDEX ix_mcp_tasks_token ON mcp_tasks (token_id)`);
    await q.query(`CREATE INDEX ix_mcp_tasks_approval ON mcp_tasks (approval_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_mcp_tasks_approval`);
    await q.query(`DROP INDEX ix_mcp_tasks_token`);
    await q.query(`DROP INDEX ix_mcp_tasks_user`);
    await q.query(`DROP INDEX ix_mcp_tasks_organization`);
    await q.query(`DROP INDEX ix_mcp_tasks_expires`);
    await q.query(`DROP TABLE mcp_tasks`);
  }
}
