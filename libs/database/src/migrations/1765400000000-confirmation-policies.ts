import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How much human assurance an organisation asks before a tool runs (PRODUCT §4.1): one row per
 * organisation and tool that has been set; a tool without a row follows the default (`form`, the
 * server's confirmation TTL, version 0). `version` moves by one on every change, so a decision
 * made under an older version can be told apart and refused.
 *
 * Every insert, update or delete sends `NOTIFY confirmation_policy_changed` with the organisation
 * id, from the database itself, so every replica drops its cached policies of that organisation
 * whoever wrote the row (the REST API, a manual SQL fix).
 */
export class ConfirmationPolicies1765400000000 implements MigrationInterface {
  name = 'ConfirmationPolicies1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mcp_confirmation_policies (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        tool text NOT NULL,
        mode text NOT NULL,
        expiry_seconds integer NOT NULL,
        version integer NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        updated_by uuid,
        CONSTRAINT pk_mcp_confirmation_policies PRIMARY KEY (id),
        CONSTRAINT uq_mcp_confirmation_policies_org_tool UNIQUE (organization_id, tool),
        CONSTRAINT fk_mcp_confirmation_policies_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
        CONSTRAINT fk_mcp_confirmation_policies_updated_by FOREIGN KEY (updated_by) REFERENCES users (id) ON DELETE SET NULL,
        CONSTRAINT ck_mcp_confirmation_policies_mode CHECK (mode IN ('form', 'verified', 'approval')),
        CONSTRAINT ck_mcp_confirmation_policies_expiry CHECK (expiry_seconds BETWEEN 60 AND 604800),
        CONSTRAINT ck_mcp_confirmation_policies_version CHECK (version > 0)
      )`);
    await q.query(
      `CREATE INDEX ix_mcp_confirmation_policies_updated_by ON mcp_confirmation_policies (updated_by)`,
    );
    await q.query(`
      CREATE FUNCTION notify_confirmation_policy_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        r record;
      BEGIN
        IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
        PERFORM pg_notify('confirmation_policy_changed', r.organization_id::text);
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER tr_mcp_confirmation_policies_changed
        AFTER INSERT OR UPDATE OR DELETE ON mcp_confirmation_policies
        FOR EACH ROW EXECUTE FUNCTION notify_confirmation_policy_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER tr_mcp_confirmation_policies_changed ON mcp_confirmation_policies`);
    await q.query(`DROP FUNCTION notify_confirmation_policy_changed()`);
    await q.query(`DROP INDEX ix_mcp_confirmation_policies_updated_by`);
    await q.query(`DROP TABLE mcp_confirmation_policies`);
  }
}
