import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Audit events say who and what in words, as they were at the time: the actor's display name and
 * e-mail, the token's name and kind, and a human label of the resource (a portal user's e-mail,
 * an account's name, a member's e-mail, a token's name). A deleted portal user's history stays
 * findable by the e-mail it had.
 *
 * `search_text` (generated) joins those labels and the MCP client name for `?q=`; a trigram GIN
 * index serves substring search (pg_trgm, a trusted extension: the database owner may create
 * it). Existing events are labelled once from what the database still knows (their recorded
 * changes first, then the current rows); the append-only trigger is paused for that backfill
 * only, inside this migration's transaction.
 *
 * `down` drops the columns and the index; it leaves the pg_trgm extension, which other objects
 * may use by then.
 */
export class AuditEventLabels1764730000000 implements MigrationInterface {
  name = 'AuditEventLabels1764730000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`
      ALTER TABLE audit_events
        ADD COLUMN actor_name text,
        ADD COLUMN actor_email text,
        ADD COLUMN token_name text,
        ADD COLUMN token_kind text,
        ADD COLUMN resource_label text,
        ADD CONSTRAINT ck_audit_events_token_kind CHECK (token_kind IN ('personal', 'oauth', 'session'))`);

    await q.query(`ALTER TABLE audit_events DISABLE TRIGGER tr_audit_events_append_only`);
    await q.query(`
      UPDATE audit_events e SET actor_name = u.name, actor_email = u.email
        FROM users u WHERE u.id = e.actor_user_id`);
    await q.query(`
      UPDATE audit_events e SET actor_name = p.name, actor_email = p.email
        FROM portal_users p WHERE e.actor_type = 'portal_user' AND p.id = e.resource_id`);
    await q.query(`
      UPDATE audit_events e SET token_name = t.name, token_kind = t.kind
        FROM api_tokens t WHERE t.id = e.token_id`);
    await q.query(`
      UPDATE audit_events e SET resource_label = CASE e.resource_type
          WHEN 'portal_user' THEN coalesce(e.changes #>> '{email,after}', e.changes #>> '{email,before}',
                                           (SELECT p.email FROM portal_users p WHERE p.id = e.resource_id))
          WHEN 'account' THEN coalesce(e.changes #>> '{name,after}', e.changes #>> '{name,before}',
                                       (SELECT a.name FROM accounts a WHERE a.id = e.resource_id))
          WHEN 'member' THEN (SELECT u.email FROM users u WHERE u.id = e.resource_id)
          WHEN 'token' THEN coalesce(e.changes #>> '{name,after}',
                                     (SELECT t.name FROM api_tokens t WHERE t.id = e.resource_id))
        END`);
    await q.query(`ALTER TABLE audit_events ENABLE TRIGGER tr_audit_events_append_only`);

    await q.query(`
      ALTER TABLE audit_events ADD COLUMN search_text text GENERATED ALWAYS AS (
        coalesce(actor_name, '') || E'\\n' || coalesce(actor_email, '') || E'\\n' ||
        coalesce(token_name, '') || E'\\n' || coalesce(resource_label, '') || E'\\n' ||
        coalesce(client_name, '')
      ) STORED`);
    await q.query(
      `CREATE INDEX ix_audit_events_search ON audit_events USING gin (search_text gin_trgm_ops)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_audit_events_search`);
    await q.query(`
      ALTER TABLE audit_events
        DROP COLUMN search_text,
        DROP CONSTRAINT ck_audit_events_token_kind,
        DROP COLUMN resource_label,
        DROP COLUMN token_kind,
        DROP COLUMN token_name,
        DROP COLUMN actor_email,
        DROP COLUMN actor_name`);
  }
}
