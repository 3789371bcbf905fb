import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The OAuth authorization server's storage: people's browser sessions, one-time sign-in links,
 * the records `oidc-provider` keeps (grants, codes, refresh tokens, registered clients,
 * interactions) and its signing keys. OAuth access tokens themselves are rows of `api_tokens`
 * (kind `oauth`), one per grant, bound to the grant, the client and the audience.
 */
export class OAuth1764720000000 implements MigrationInterface {
  name = 'OAuth1764720000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE person_sessions (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL,
        secret_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        ended_at timestamptz,
        CONSTRAINT pk_person_sessions PRIMARY KEY (id),
        CONSTRAINT uq_person_sessions_secret_hash UNIQUE (secret_hash),
        CONSTRAINT fk_person_sessions_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX ix_person_sessions_user ON person_sessions (user_id)`);
    await q.query(`
      CREATE TABLE sign_in_links (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL,
        secret_hash text NOT NULL,
        return_to text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        CONSTRAINT pk_sign_in_links PRIMARY KEY (id),
        CONSTRAINT uq_sign_in_links_secret_hash UNIQUE (secret_hash),
        CONSTRAINT fk_sign_in_links_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX ix_sign_in_links_user ON sign_in_links (user_id)`);
    await q.query(`
      CREATE TABLE oauth_records (
        model text NOT NULL,
        id text NOT NULL,
        payload jsonb NOT NULL,
        grant_id text,
        uid text,
        user_code text,
        expires_at timestamptz,
        consumed_at timestamptz,
        CONSTRAINT pk_oauth_records PRIMARY KEY (model, id)
      )`);
    await q.query(
      `CREATE INDEX ix_oauth_records_grant ON oauth_records (grant_id) WHERE grant_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX ix_oauth_records_uid ON oauth_records (model, uid) WHERE uid IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX ix_oauth_records_expires ON oauth_records (expires_at) WHERE expires_at IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE oauth_signing_keys (
        id text NOT NULL,
        jwk jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_oauth_signing_keys PRIMARY KEY (id)
      )`);
    await q.query(`
      ALTER TABLE api_tokens
        ADD COLUMN oauth_grant_id text,
        ADD COLUMN oauth_client_id text,
        ADD COLUMN audience text,
        ADD CONSTRAINT ck_api_tokens_oauth_binding CHECK (
          (kind = 'oauth' OR (oauth_grant_id IS NULL AND oauth_client_id IS NULL))
          AND (oauth_grant_id IS NULL OR (oauth_client_id IS NOT NULL AND audience IS NOT NULL))
        )`);
    await q.query(
      `CREATE UNIQUE INDEX uq_api_tokens_oauth_grant ON api_tokens (oauth_grant_id) WHERE oauth_grant_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX uq_api_tokens_oauth_grant`);
    await q.query(`
      ALTER TABLE api_tokens
        DROP CONSTRAINT ck_api_tokens_oauth_binding,
        DROP COLUMN audience,
        DROP COLUMN oauth_client_id,
        DROP COLUMN oauth_grant_id`);
    await q.query(`DROP TABLE oauth_signing_keys`);
    await q.query(`DROP TABLE oauth_records`);
    await q.query(`DROP TABLE sign_in_links`);
    await q.query(`DROP TABLE person_sessions`);
  }
}
