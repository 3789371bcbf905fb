import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sign-ins become audit events of the person's organisations: the sign-in pages are channel
 * `web`, acted on by a `person` (who proved who they are) or `anonymous` (whoever asked for a
 * link), and only they use that channel.
 *
 * Sign-in mail is the person's own and no longer goes to an organisation's outbox (where that
 * organisation's admins could read it): the ones already there are deleted. `down` cannot bring
 * those back (they were dead links by then anyway) and refuses while a `web` event exists (the
 * table is append-only: such events cannot be removed).
 */
export class SignInAuditAndPersonalMail1764900000000 implements MigrationInterface {
  name = 'SignInAuditAndPersonalMail1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE audit_events
        DROP CONSTRAINT ck_audit_events_channel,
        DROP CONSTRAINT ck_audit_events_actor_type,
        ADD CONSTRAINT ck_audit_events_channel CHECK (channel IN ('api', 'mcp', 'cli', 'web')),
        ADD CONSTRAINT ck_audit_events_actor_type
          CHECK (actor_type IN ('member', 'portal_user', 'admin_command', 'person', 'anonymous')),
        ADD CONSTRAINT ck_audit_events_sign_in_page
          CHECK ((actor_type IN ('person', 'anonymous')) = (channel = 'web'))`);
    await q.query(
      `DELETE FROM mail_outbox WHERE subject = 'Your sign-in link' AND body_text LIKE '%/signin/link?token=%'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE audit_events
        DROP CONSTRAINT ck_audit_events_sign_in_page,
        DROP CONSTRAINT ck_audit_events_actor_type,
        DROP CONSTRAINT ck_audit_events_channel,
        ADD CONSTRAINT ck_audit_events_channel CHECK (channel IN ('api', 'mcp', 'cli')),
        ADD CONSTRAINT ck_audit_events_actor_type
          CHECK (actor_type IN ('member', 'portal_user', 'admin_command'))`);
  }
}
