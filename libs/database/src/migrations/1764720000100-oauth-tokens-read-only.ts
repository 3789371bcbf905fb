import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAuth tokens hold read scopes only: an allowlist instead of a list of forbidden write scopes, so
 * `org:admin` (and any scope added later) is refused by the database too, not only at issuance.
 */
export class OauthTokensReadOnly1764720000100 implements MigrationInterface {
  name = 'OauthTokensReadOnly1764720000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_tokens DROP CONSTRAINT ck_api_tokens_oauth_read_only`);
    await q.query(`
      ALTER TABLE api_tokens ADD CONSTRAINT ck_api_tokens_oauth_read_only
        CHECK (kind <> 'oauth' OR scopes <@ ARRAY['portal_users:read','accounts:read','audit:read']::text[])`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_tokens DROP CONSTRAINT ck_api_tokens_oauth_read_only`);
    await q.query(`
      ALTER TABLE api_tokens ADD CONSTRAINT ck_api_tokens_oauth_read_only
        CHECK (kind <> 'oauth' OR NOT (scopes && ARRAY['portal_users:write','accounts:write']::text[]))`);
  }
}
