import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Organisations, people, memberships and API tokens (hashed). */
export class Identity1764700000000 implements MigrationInterface {
  name = 'Identity1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organizations (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        slug text NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_organizations PRIMARY KEY (id),
        CONSTRAINT uq_organizations_slug UNIQUE (slug)
      )`);
    await q.query(`
      CREATE TABLE users (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        email text NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_users PRIMARY KEY (id)
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_users_email ON users (lower(email))`);
    await q.query(`
      CREATE TABLE memberships (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        role text NOT NULL,
        status text NOT NULL DEFAULT 'active',
        permissions text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_memberships PRIMARY KEY (id),
        CONSTRAINT uq_memberships_org_user UNIQUE (organization_id, user_id),
        CONSTRAINT fk_memberships_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
        CONSTRAINT fk_memberships_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
        CONSTRAINT ck_memberships_status CHECK (status IN ('active', 'inactive')),
        CONSTRAINT ck_memberships_role CHECK (role IN ('owner', 'admin', 'member', 'viewer', 'custom'))
      )`);
    await q.query(`
      CREATE TABLE api_tokens (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        kind text NOT NULL,
        name text NOT NULL,
        client_name text,
        token_prefix text NOT NULL,
        secret_hash text NOT NULL,
        scopes text[] NOT NULL,
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_api_tokens PRIMARY KEY (id),
        CONSTRAINT uq_api_tokens_secret_hash UNIQUE (secret_hash),
        CONSTRAINT fk_api_tokens_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
        CONSTRAINT fk_api_tokens_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
        CONSTRAINT ck_api_tokens_kind CHECK (kind IN ('personal', 'oauth')),
        CONSTRAINT ck_api_tokens_oauth_read_only CHECK (kind <> 'oauth' OR NOT (scopes && ARRAY['portal_users:write','accounts:write']::text[]))
      )`);
    await q.query(`CREATE INDEX ix_api_tokens_org_user ON api_tokens (organization_id, user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_tokens`);
    await q.query(`DROP TABLE memberships`);
    await q.query(`DROP TABLE users`);
    await q.query(`DROP TABLE organizations`);
  }
}
