import { createHash, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthHousekeeping } from '@app/oauth-server';
import { startTestServer, type TestServer } from '../support/test-server.js';
import type { Json } from './platform-api.fixtures.js';

/**
 * Expired OAuth records, sign-in links and person sessions are deleted by the periodic sweep,
 * in bounded batches, a day after they expire; nothing live (or recently expired) is touched.
 */

const HOUR = 3600;
const hex = (): string => createHash('sha256').update(randomBytes(32)).digest('hex');
const DAY = 24 * HOUR;

describe('OAuth housekeeping', () => {
  let t: TestServer;
  let ds: DataSource;
  let userId: string;
  /** The ids this test inserted, per table and age. */
  const ids = {
    records: { old: [] as string[], recent: '', live: '', noExpiry: '' },
    links: { old: [] as string[], recent: '', live: '' },
    sessions: { old: [] as string[], recent: '', live: '' },
  };

  /** Inserts an oauth_records row expiring `offsetSeconds` from now (null: never). */
  async function record(offsetSeconds: number | null): Promise<string> {
    const id = hex();
    await ds.query(
      `INSERT INTO oauth_records (model, id, payload, expires_at)
       VALUES ('AuthorizationCode', $1, '{}'::jsonb,
               CASE WHEN $2::int IS NULL THEN NULL ELSE now() + make_interval(secs => $2::int) END)`,
      [id, offsetSeconds],
    );
    return id;
  }

  async function signInLink(offsetSeconds: number): Promise<string> {
    const rows = await ds.query<{ id: string }[]>(
      `INSERT INTO sign_in_links (user_id, secret_hash, expires_at, created_at)
       VALUES ($1, $2, now() + make_interval(secs => $3::int), now() - interval '3 days')
       RETURNING id`,
      [userId, hex(), offsetSeconds],
    );
    return rows[0].id;
  }

  async function session(offsetSeconds: number, ended = false): Promise<string> {
    const rows = await ds.query<{ id: string }[]>(
      `INSERT INTO person_sessions (user_id, secret_hash, expires_at, ended_at, created_at)
       VALUES ($1, $2, now() + make_interval(secs => $3::int),
               CASE WHEN $4 THEN now() - interval '2 days' END, now() - interval '3 days')
       RETURNING id`,
      [userId, hex(), offsetSeconds, ended],
    );
    return rows[0].id;
  }

  async function remaining(table: string, column: string, wanted: string[]): Promise<string[]> {
    const rows = await ds.query<{ id: string }[]>(
      `SELECT ${column} AS id FROM ${table} WHERE ${column} = ANY($1::text[])`,
      [wanted],
    );
    return rows.map((r) => r.id).sort();
  }

  beforeAll(async () => {
    t = await startTestServer({ logLevel: 'error' });
    ds = t.server.app.get(DataSource);
    const me: Json = await (await t.request('/v1/me', { token: 'owner' })).json();
    userId = me.person.id;
    for (let i = 0; i < 3; i++) {
      ids.records.old.push(await record(-2 * DAY - i));
      ids.links.old.push(await signInLink(-2 * DAY - i));
      // Expired long ago, signed out or not.
      ids.sessions.old.push(await session(-2 * DAY - i, i === 0));
    }
    ids.records.recent = await record(-HOUR);
    ids.records.live = await record(HOUR);
    ids.records.noExpiry = await record(null);
    ids.links.recent = await signInLink(-HOUR);
    ids.links.live = await signInLink(HOUR);
    ids.sessions.recent = await session(-HOUR);
    ids.sessions.live = await session(HOUR);
  });
  afterAll(async () => t?.close());

  it('deletes what expired more than a day ago, at most one batch per table per sweep', async () => {
    const housekeeping = t.server.app.get(OAuthHousekeeping);
    const first = await housekeeping.sweep(2);
    expect(first).toEqual({ oauthRecords: 2, signInLinks: 2, personSessions: 2 });
    const second = await housekeeping.sweep(2);
    expect(second).toEqual({ oauthRecords: 1, signInLinks: 1, personSessions: 1 });
    const third = await housekeeping.sweep(2);
    expect(third).toEqual({ oauthRecords: 0, signInLinks: 0, personSessions: 0 });

    const { records, links, sessions } = ids;
    expect(await remaining('oauth_records', 'id', records.old)).toEqual([]);
    expect(await remaining('sign_in_links', 'id::text', links.old)).toEqual([]);
    expect(await remaining('person_sessions', 'id::text', sessions.old)).toEqual([]);
    // Live, recently expired (a day of grace) and never-expiring rows stay.
    const keptRecords = [records.recent, records.live, records.noExpiry];
    expect(await remaining('oauth_records', 'id', keptRecords)).toEqual([...keptRecords].sort());
    const keptLinks = [links.recent, links.live];
    expect(await remaining('sign_in_links', 'id::text', keptLinks)).toEqual([...keptLinks].sort());
    const keptSessions = [sessions.recent, sessions.live];
    expect(await remaining('person_sessions', 'id::text', keptSessions)).toEqual(
      [...keptSessions].sort(),
    );
  });
});
