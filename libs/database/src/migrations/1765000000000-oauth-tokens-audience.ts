import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every OAuth token is bound to a resource (RFC 8707 audience), as the authorization server issues
 * them: a token of kind `oauth` without an audience was accepted by every route, the REST API
 * included, which refuses a real OAuth token. Existing rows without one (the seeded demo token)
 * get the MCP URL the migration command is given (the session setting `platform.mcp_url`, see
 * `migrate`), else the audience of this deployment's real OAuth tokens; a row for which neither is
 * known is revoked and bound to a resource no route serves, so no token keeps a wider reach.
 */
export class OauthTokensAudience1765000000000 implements MigrationInterface {
  name = 'OauthTokensAudience1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE api_tokens
         SET audience = COALESCE(
               NULLIF(current_setting('platform.mcp_url', true), ''),
               (SELECT r.audience FROM api_tokens r
                 WHERE r.kind = 'oauth' AND r.audience IS NOT NULL
                 ORDER BY r.created_at DESC LIMIT 1))
       WHERE kind = 'oauth' AND audience IS NULL`);
    await q.query(`
      UPDATE api_tokens
         SET audience = 'urn:platform-mcp:no-resource', revoked_at = COALESCE(revoked_at, now())
       WHERE kind = 'oauth' AND audience IS NULL`);
    await q.query(`
      ALTER TABLE api_tokens ADD CONSTRAINT ck_api_tokens_oauth_audience
        CHECK (kind <> 'oauth' OR audience IS NOT NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_tokens DROP CONSTRAINT ck_api_tokens_oauth_audience`);
  }
}
