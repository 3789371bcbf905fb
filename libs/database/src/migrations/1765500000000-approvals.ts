import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Four-eyes approval of a tool call (confirmation policy `approval`, ADR 0011): one row per request,
 * bound to the requester (person and token), the tool, the arguments' digest and the policy version
 * it was asked under. `pending` → `approved` / `denied` (by another admin, with a reason) or
 * `expired`; `approved` → `executed` once (the retry that ran it) or `expired`; an open request
 * (`pending`, `approved`) of an older policy version becomes `superseded`. At most one open request
 * per binding (the partial unique index), so a retried call never asks twice. `reported_at`: when
 * the requester's retry was told of a denial, expiry or supersession (told once; the next call asks
 * again). Names and e-mails are kept as they were, so the list needs no join.
 */
export class Approvals1765500000000 implements MigrationInterface {
  name = 'Approvals1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mcp_approvals (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        token_id uuid NOT NULL,
        user_id uuid NOT NULL,
        requester_name text NOT NULL,
        requester_email text NOT NULL,
        tool text NOT NULL,
        arguments_digest text NOT NULL,
        arguments jsonb NOT NULL,
        target_type text NOT NULL,
        target_id text NOT NULL,
        message text NOT NULL,
        client_name text,
        protocol_version text NOT NULL,
        request_id text NOT NULL,
        policy_version integer NOT NULL,
        expiry_seconds integer NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        decided_at timestamptz,
        decided_by uuid,
        decided_by_name text,
        reason text,
        executed_at timestamptz,
        executed_request_id text,
        reported_at timestamptz,
        CONSTRAINT pk_mcp_approvals PRIMARY KEY (id),
        CONSTRAINT fk_mcp_approvals_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
        CONSTRAINT fk_mcp_approvals_token FOREIGN KEY (token_id) REFERENCES api_tokens (id) ON DELETE CASCADE,
        CONSTRAINT fk_mcp_approvals_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
        CONSTRAINT fk_mcp_approvals_decided_by FOREIGN KEY (decided_by) REFERENCES users (id) ON DELETE SET NULL,
        CONSTRAINT ck_mcp_approvals_status CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'executed', 'superseded')),
        CONSTRAINT ck_mcp_approvals_arguments_digest CHECK (arguments_digest ~ '^[0-9a-f]{64}$'),
        CONSTRAINT ck_mcp_approvals_expiry CHECK (expires_at > created_at),
        CONSTRAINT ck_mcp_approvals_decided CHECK (status NOT IN ('approved', 'denied', 'executed') OR (decided_at IS NOT NULL AND decided_by_name IS NOT NULL)),
        CONSTRAINT ck_mcp_approvals_not_own CHECK (decided_by IS NULL OR decided_by <> user_id),
        CONSTRAINT ck_mcp_approvals_denied_reason CHECK (status <> 'denied' OR reason IS NOT NULL),
        CONSTRAINT ck_mcp_approvals_executed CHECK ((executed_at IS NOT NULL) = (status = 'executed'))
      )`);
    await q.query(`
      CREATE UNIQUE INDEX uq_mcp_approvals_open ON mcp_approvals
        (organization_id, token_id, user_id, tool, arguments_digest) WHERE status IN ('pending', 'approved')`);
    await q.query(
      `CREATE INDEX ix_mcp_approvals_binding ON mcp_approvals (organization_id, token_id, user_id, tool, arguments_digest, created_at DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_mcp_approvals_org_created ON mcp_approvals (organization_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_mcp_approvals_org_pending ON mcp_approvals (organization_id, expires_at) WHERE status = 'pending'`,
    );
    await q.query(`CREATE INDEX ix_mcp_approvals_token ON mcp_approvals (token_id)`);
    await q.query(`CREATE INDEX ix_mcp_approvals_user ON mcp_approvals (user_id)`);
    await q.query(`CREATE INDEX ix_mcp_approvals_decided_by ON mcp_approvals (decided_by)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_mcp_approvals_decided_by`);
    await q.query(`DROP INDEX ix_mcp_approvals_user`);
    await q.query(`DROP INDEX ix_mcp_approvals_token`);
    await q.query(`DROP INDEX ix_mcp_approvals_org_pending`);
    await q.query(`DROP INDEX ix_mcp_approvals_org_created`);
    await q.query(`DROP INDEX ix_mcp_approvals_binding`);
    await q.query(`DROP INDEX uq_mcp_approvals_open`);
    await q.query(`DROP TABLE mcp_approvals`);
  }
}
