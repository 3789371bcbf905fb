import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Portal users (invited → active ⇄ inactive). E-mail is unique per organisation ignoring case;
 * `external_id` is unique per organisation; the invitation token is stored only as its SHA-256.
 * The account reference is a composite key with the organisation, so a portal user can only point
 * at an account of its own organisation; deleting the account detaches (SET NULL) the rest.
 */
export class PortalUsers1764710000001 implements MigrationInterface {
  name = 'PortalUsers1764710000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE portal_users (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        account_id uuid,
        email text NOT NULL,
        name text NOT NULL,
        external_id text,
        status text NOT NULL DEFAULT 'invited',
        invitation_token_hash text,
        invitation_expires_at timestamptz,
        invitation_sent_at timestamptz,
        activated_at timestamptz,
        deactivated_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_portal_users PRIMARY KEY (id),
        CONSTRAINT uq_portal_users_org_external_id UNIQUE (organization_id, external_id),
        CONSTRAINT uq_portal_users_invitation_token_hash UNIQUE (invitation_token_hash),
        CONSTRAINT fk_portal_users_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
        CONSTRAINT fk_portal_users_account FOREIGN KEY (organization_id, account_id)
          REFERENCES accounts (organization_id, id) ON DELETE SET NULL (account_id),
        CONSTRAINT ck_portal_users_status CHECK (status IN ('invited', 'active', 'inactive')),
        CONSTRAINT ck_portal_users_invitation CHECK (invitation_token_hash IS NULL OR status = 'invited')
      )`);
    await q.query(
      `CREATE UNIQUE INDEX uq_portal_users_org_email ON portal_users (organization_id, lower(email))`,
    );
    await q.query(
      `CREATE INDEX ix_portal_users_org_created ON portal_users (organization_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_portal_users_org_status_created ON portal_users (organization_id, status, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_portal_users_org_account_created ON portal_users (organization_id, account_id, created_at DESC, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE portal_users`);
  }
}
