import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The `admin` command leaves audit events like the REST API's writes: its actor is the command
 * (`actor_type = 'admin_command'`, no person, no token) and its channel `cli`. Actions and resource
 * types are not constrained in the table (the vocabulary in `libs/audit-trail` is); these two are.
 *
 * `down` restores the narrower checks and therefore refuses while an admin-command event exists
 * (the table is append-only: such events cannot be removed).
 */
export class AuditAdminCommand1764810000000 implements MigrationInterface {
  name = 'AuditAdminCommand1764810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE audit_events
        DROP CONSTRAINT ck_audit_events_channel,
        DROP CONSTRAINT ck_audit_events_actor_type,
        ADD CONSTRAINT ck_audit_events_channel CHECK (channel IN ('api', 'mcp', 'cli')),
        ADD CONSTRAINT ck_audit_events_actor_type
          CHECK (actor_type IN ('member', 'portal_user', 'admin_command')),
        ADD CONSTRAINT ck_audit_events_admin_command
          CHECK ((actor_type = 'admin_command') = (channel = 'cli'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE audit_events
        DROP CONSTRAINT ck_audit_events_admin_command,
        DROP CONSTRAINT ck_audit_events_actor_type,
        DROP CONSTRAINT ck_audit_events_channel,
        ADD CONSTRAINT ck_audit_events_channel CHECK (channel IN ('api', 'mcp')),
        ADD CONSTRAINT ck_audit_events_actor_type CHECK (actor_type IN ('member', 'portal_user'))`);
  }
}
