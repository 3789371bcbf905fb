import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revoking (or deleting) an OAuth grant's `api_tokens` row, by whatever path (the connected
 * clients list, an org admin, refresh-token or code reuse), deletes the grant's refresh tokens,
 * codes and the grant itself in the same statement: nothing of a revoked grant stays usable.
 */
export class OAuthGrantRevocation1764720000001 implements MigrationInterface {
  name = 'OAuthGrantRevocation1764720000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION oauth_grant_ended() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM oauth_records WHERE grant_id = OLD.oauth_grant_id;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER tr_api_tokens_oauth_grant_revoked AFTER UPDATE OF revoked_at ON api_tokens
        FOR EACH ROW
        WHEN (OLD.oauth_grant_id IS NOT NULL AND NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL)
        EXECUTE FUNCTION oauth_grant_ended()`);
    await q.query(`
      CREATE TRIGGER tr_api_tokens_oauth_grant_deleted AFTER DELETE ON api_tokens
        FOR EACH ROW WHEN (OLD.oauth_grant_id IS NOT NULL)
        EXECUTE FUNCTION oauth_grant_ended()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER tr_api_tokens_oauth_grant_deleted ON api_tokens`);
    await q.query(`DROP TRIGGER tr_api_tokens_oauth_grant_revoked ON api_tokens`);
    await q.query(`DROP FUNCTION oauth_grant_ended()`);
  }
}
