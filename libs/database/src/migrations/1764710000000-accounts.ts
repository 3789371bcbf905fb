import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customer accounts. `external_id` and `tax_id` are unique per organisation; tax ids compare
 * without punctuation or case ("12.345.678/0001-90" = "12345678000190").
 * `(organization_id, id)` is unique so portal users can reference an account of their own
 * organisation only (composite foreign key).
 */
export class Accounts1764710000000 implements MigrationInterface {
  name = 'Accounts1764710000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE accounts (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        name text NOT NULL,
        external_id text,
        tax_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_accounts PRIMARY KEY (id),
        CONSTRAINT uq_accounts_org_id UNIQUE (organization_id, id),
        CONSTRAINT uq_accounts_org_external_id UNIQUE (organization_id, external_id),
        CONSTRAINT fk_accounts_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE UNIQUE INDEX uq_accounts_org_tax_id ON accounts (organization_id, (regexp_replace(upper(tax_id), '[^0-9A-Z]', '', 'g'))) WHERE tax_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX ix_accounts_org_created ON accounts (organization_id, created_at DESC, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE accounts`);
  }
}
