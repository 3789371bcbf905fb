import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * DPoP (RFC 9449) on the resource side.
 *
 * - `api_tokens.dpop_jkt`: the JWK SHA-256 thumbprint of the key an OAuth access token is bound
 *   to (`cnf.jkt`); such a token is accepted only with a proof signed by that key. Only OAuth
 *   tokens are bound.
 * - `dpop_proofs_seen`: every proof accepted, by the hash of its key thumbprint and `jti`, until its
 *   `iat` leaves the acceptance window; shared by every replica, so a proof is accepted once.
 */
export class Dpop1764930000000 implements MigrationInterface {
  name = 'Dpop1764930000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_tokens
        ADD COLUMN dpop_jkt text,
        ADD CONSTRAINT ck_api_tokens_dpop_oauth_only CHECK (dpop_jkt IS NULL OR kind = 'oauth')`);
    await q.query(`
      CREATE TABLE dpop_proofs_seen (
        key text NOT NULL,
        expires_at timestamptz NOT NULL,
        CONSTRAINT pk_dpop_proofs_seen PRIMARY KEY (key)
      )`);
    await q.query(`CREATE INDEX ix_dpop_proofs_seen_expires_at ON dpop_proofs_seen (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE dpop_proofs_seen`);
    await q.query(`
      ALTER TABLE api_tokens
        DROP CONSTRAINT ck_api_tokens_dpop_oauth_only,
        DROP COLUMN dpop_jkt`);
  }
}
