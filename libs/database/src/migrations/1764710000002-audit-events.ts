import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The organisation audit trail. Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE, so
 * not even a code path that forgot the rule can rewrite history. `occurred_at` uses
 * clock_timestamp() so several events of one transaction keep their order. Indexed for the list
 * filters (actor, action, resource), each with the (occurred_at, id) keyset order.
 */
export class AuditEvents1764710000002 implements MigrationInterface {
  name = 'AuditEvents1764710000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_events (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        occurred_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        actor_type text NOT NULL,
        actor_user_id uuid,
        token_id uuid,
        channel text NOT NULL,
        client_name text,
        action text NOT NULL,
        resource_type text NOT NULL,
        resource_id uuid NOT NULL,
        changes jsonb NOT NULL DEFAULT '{}'::jsonb,
        request_id text,
        confirmation_id text,
        CONSTRAINT pk_audit_events PRIMARY KEY (id),
        CONSTRAINT fk_audit_events_organization FOREIGN KEY (organization_id) REFERENCES organizations (id),
        CONSTRAINT ck_audit_events_channel CHECK (channel IN ('api', 'mcp')),
        CONSTRAINT ck_audit_events_actor_type CHECK (actor_type IN ('member', 'portal_user')),
        CONSTRAINT ck_audit_events_member_actor CHECK (actor_type <> 'member' OR (actor_user_id IS NOT NULL AND token_id IS NOT NULL))
      )`);
    await q.query(
      `CREATE INDEX ix_audit_events_org_occurred ON audit_events (organization_id, occurred_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_audit_events_org_actor ON audit_events (organization_id, actor_user_id, occurred_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_audit_events_org_action ON audit_events (organization_id, action, occurred_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_audit_events_org_resource ON audit_events (organization_id, resource_type, resource_id, occurred_at DESC, id DESC)`,
    );
    // The events a confirmation produced (GET /v1/mcp/confirmations/{id}).
    await q.query(
      `CREATE INDEX ix_audit_events_confirmation ON audit_events (confirmation_id) WHERE confirmation_id IS NOT NULL`,
    );
    await q.query(`
      CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_events is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
      END
      $$`);
    await q.query(`
      CREATE TRIGGER tr_audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
        FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`);
    await q.query(`
      CREATE TRIGGER tr_audit_events_no_truncate BEFORE TRUNCATE ON audit_events
        FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_events`);
    await q.query(`DROP FUNCTION audit_events_append_only()`);
  }
}
