import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The local mail outbox: where mail goes when no SMTP server is configured (embedded demo, tests). */
export class MailOutbox1764710000003 implements MigrationInterface {
  name = 'MailOutbox1764710000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mail_outbox (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        recipient text NOT NULL,
        subject text NOT NULL,
        body_text text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_mail_outbox PRIMARY KEY (id),
        CONSTRAINT fk_mail_outbox_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX ix_mail_outbox_org_created ON mail_outbox (organization_id, created_at DESC, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE mail_outbox`);
  }
}
