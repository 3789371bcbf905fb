import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every change that alters what a bearer token resolves to (the token revoked, expired, re-scoped
 * or deleted; the person's membership added, changed or removed; the person or organisation renamed
 * or deleted) sends `NOTIFY principal_changed` with what changed, from the database itself, so
 * every writer is covered (REST, the admin command, OAuth refresh rotation, cascades, a manual SQL
 * fix). Replicas caching resolved tokens drop the affected entries when it arrives. Payloads:
 * `t:<token id>`, `m:<organization id>:<user id>`, `u:<user id>`, `o:<organization id>`.
 * `last_used_at` (written on use) is not among the watched columns.
 */
export class PrincipalChangeNotify1764800000000 implements MigrationInterface {
  name = 'PrincipalChangeNotify1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION notify_principal_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        r record;
      BEGIN
        IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
        IF TG_TABLE_NAME = 'api_tokens' THEN
          PERFORM pg_notify('principal_changed', 't:' || r.id);
        ELSIF TG_TABLE_NAME = 'memberships' THEN
          PERFORM pg_notify('principal_changed', 'm:' || r.organization_id || ':' || r.user_id);
        ELSIF TG_TABLE_NAME = 'users' THEN
          PERFORM pg_notify('principal_changed', 'u:' || r.id);
        ELSIF TG_TABLE_NAME = 'organizations' THEN
          PERFORM pg_notify('principal_changed', 'o:' || r.id);
        END IF;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER tr_api_tokens_principal_changed
        AFTER UPDATE OF revoked_at, expires_at, scopes, name, client_name, audience, organization_id, user_id
          OR DELETE ON api_tokens
        FOR EACH ROW EXECUTE FUNCTION notify_principal_changed()`);
    await q.query(`
      CREATE TRIGGER tr_memberships_principal_changed
        AFTER INSERT OR UPDATE OR DELETE ON memberships
        FOR EACH ROW EXECUTE FUNCTION notify_principal_changed()`);
    await q.query(`
      CREATE TRIGGER tr_users_principal_changed
        AFTER UPDATE OF email, name OR DELETE ON users
        FOR EACH ROW EXECUTE FUNCTION notify_principal_changed()`);
    await q.query(`
      CREATE TRIGGER tr_organizations_principal_changed
        AFTER UPDATE OF slug OR DELETE ON organizations
        FOR EACH ROW EXECUTE FUNCTION notify_principal_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER tr_organizations_principal_changed ON organizations`);
    await q.query(`DROP TRIGGER tr_users_principal_changed ON users`);
    await q.query(`DROP TRIGGER tr_memberships_principal_changed ON memberships`);
    await q.query(`DROP TRIGGER tr_api_tokens_principal_changed ON api_tokens`);
    await q.query(`DROP FUNCTION notify_principal_changed()`);
  }
}
