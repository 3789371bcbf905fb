import { Client, type QueryResultRow } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@app/testing';
import { MIGRATIONS, migrate } from '@app/database';

describe('migrations', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => db.dispose());

  async function tables(): Promise<string[]> {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      const r = await c.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'schema_migrations' ORDER BY 1`,
      );
      return r.rows.map((x) => x.table_name);
    } finally {
      await c.end();
    }
  }

  it('apply every migration, revert each one exactly, and apply again', async () => {
    const up = await migrate(db.url, 'up');
    expect(up.applied).toHaveLength(MIGRATIONS.length);
    const full = await tables();
    expect(full).toEqual(
      expect.arrayContaining(['organizations', 'users', 'memberships', 'api_tokens']),
    );

    for (let i = MIGRATIONS.length - 1; i >= 0; i--) {
      const report = await migrate(db.url, 'down');
      expect(report.applied).toHaveLength(i);
    }
    expect(await tables()).toEqual([]);

    await migrate(db.url, 'up');
    expect(await tables()).toEqual(full);
    expect((await migrate(db.url, 'status')).pending).toEqual([]);
  });
});

describe('migration OauthTokensAudience1765000000000', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => db.dispose());

  async function sql<T = Record<string, unknown>>(text: string, params: unknown[] = []) {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query<T & QueryResultRow>(text, params)).rows;
    } finally {
      await c.end();
    }
  }

  /** The schema just before the migration, with one OAuth token without an audience. */
  async function beforeItWithAnUnboundToken(): Promise<void> {
    await migrate(db.url, 'up');
    // Back to just before it (later migrations are reverted first).
    while ((await migrate(db.url, 'status')).applied.includes('OauthTokensAudience1765000000000')) {
      await migrate(db.url, 'down');
    }
    await sql(`DELETE FROM api_tokens`);
    const [org] = await sql<{ id: string }>(
      `INSERT INTO organizations (slug, name) VALUES ('o-' || gen_random_uuid(), 'O') RETURNING id`,
    );
    const [user] = await sql<{ id: string }>(
      `INSERT INTO users (email, name) VALUES (gen_random_uuid() || '@x.test', 'U') RETURNING id`,
    );
    await sql(
      `INSERT INTO api_tokens (organization_id, user_id, kind, name, token_prefix, secret_hash, scopes)
       VALUES ($1, $2, 'oauth', 'Demo MCP client', 'oat_x', gen_random_uuid()::text, ARRAY['audit:read'])`,
      [org.id, user.id],
    );
  }

  it('binds an existing OAuth token without an audience to the MCP URL it is given, then refuses any without one', async () => {
    await beforeItWithAnUnboundToken();
    await migrate(db.url, 'up', { mcpUrl: 'https://mcp.example.test/mcp' });
    expect(await sql(`SELECT audience, revoked_at FROM api_tokens`)).toEqual([
      { audience: 'https://mcp.example.test/mcp', revoked_at: null },
    ]);
    await expect(sql(`UPDATE api_tokens SET audience = NULL WHERE kind = 'oauth'`)).rejects.toThrow(
      /ck_api_tokens_oauth_audience/,
    );
    // The setting does not outlive the migration (the embedded database has one session).
    expect(await sql(`SELECT current_setting('platform.mcp_url', true) AS v`)).not.toEqual([
      { v: 'https://mcp.example.test/mcp' },
    ]);
  });

  it('without an MCP URL, such a token is revoked and bound to no route rather than left open', async () => {
    await beforeItWithAnUnboundToken();
    await migrate(db.url, 'up');
    const [row] = await sql<{ audience: string; revoked_at: Date | null }>(
      `SELECT audience, revoked_at FROM api_tokens`,
    );
    expect(row.audience).toBe('urn:platform-mcp:no-resource');
    expect(row.revoked_at).not.toBeNull();
  });
});
