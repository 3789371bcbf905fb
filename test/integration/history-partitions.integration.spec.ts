import { setTimeout as delay } from 'node:timers/promises';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addUnits,
  listPartitions,
  maintainPartitions,
  migrate,
  PARTITIONED_TABLES,
  unitStart,
  type RunSql,
} from '@app/database';
import { createTestDatabase, type TestDatabase } from '@app/testing';
import { coverHistory, runSqlOn } from '../support/history-partitions.js';
import { NEEDS_REAL_POSTGRES, skipWhen } from '../support/skip.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { AuditTrail } from '@app/audit-trail';
import { call, me, sql, walk, type Json } from './platform-api.fixtures.js';

/**
 * The history tables are range-partitioned by time (libs/database/src/partitions.ts): the
 * migration moves an existing deployment's rows, the maintainer makes partitions ahead and drops
 * whole partitions past retention (and nothing else), and the lists keep their order and cursors
 * across partition boundaries.
 */
const DAY = 86_400_000;
const MIGRATION = 'PartitionHistory1765300000000';
const spec = (table: string) => PARTITIONED_TABLES.find((s) => s.table === table)!;

/** The earliest of `times`. */
function oldest(times: Date[]): Date {
  return new Date(Math.min(...times.map((t) => t.getTime())));
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  await client.connect();
  return client;
}

async function seedOrganization(run: RunSql): Promise<string> {
  const rows = await run(
    `INSERT INTO organizations (slug, name) VALUES ('p-' || md5(random()::text), 'Partitions') RETURNING id`,
  );
  return String(rows[0].id);
}

/** `n` tool calls of `org`, the i-th at `times(i)`. */
async function insertCalls(run: RunSql, org: string, times: Date[]): Promise<void> {
  await run(
    `INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, client_name, era, protocol_version,
                                 status, is_error, duration_ms, request_id, created_at)
     SELECT gen_random_uuid(), $1, gen_random_uuid(), gen_random_uuid(), 'list_accounts', 'Claude', '2026-07-28',
            '2026-07-28', 'ok', false, 1.5, 'req', t
       FROM unnest($2::timestamptz[]) AS t`,
    [org, times.map((t) => t.toISOString())],
  );
}

async function insertAuditEvents(run: RunSql, org: string, times: Date[]): Promise<void> {
  await run(
    `INSERT INTO audit_events (organization_id, occurred_at, actor_type, channel, action, resource_type, resource_id)
     SELECT $1, t, 'admin_command', 'cli', 'organization.created', 'organization', gen_random_uuid()
       FROM unnest($2::timestamptz[]) AS t`,
    [org, times.map((t) => t.toISOString())],
  );
}

describe('the history migration moves existing rows into partitions', () => {
  let db: TestDatabase;
  let client: Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    // Back to the tables as a deployment had them before this migration.
    while ((await migrate(db.url, 'status')).applied.includes(MIGRATION)) {
      await migrate(db.url, 'down');
    }
    client = await connect(db.url);
  });

  afterAll(async () => {
    await client?.end();
    await db?.dispose();
  });

  it('keeps every row, key, check, foreign key and the audit trail append-only rule', async () => {
    const run = runSqlOn(client);
    const relkind = async (t: string) =>
      (await run(`SELECT relkind FROM pg_class WHERE oid = to_regclass($1)`, [t]))[0]?.relkind;
    expect(await relkind('mcp_tool_calls')).toBe('r');
    const org = await seedOrganization(run);
    const now = Date.now();
    // 3,000 calls over 45 days and 100 events over 100 days, as an existing deployment has them.
    const callTimes = Array.from({ length: 3000 }, (_, i) => new Date(now - (i * 45 * DAY) / 3000));
    const eventTimes = Array.from({ length: 100 }, (_, i) => new Date(now - i * DAY));
    await insertCalls(run, org, callTimes);
    await insertAuditEvents(run, org, eventTimes);
    const before = [await digest2(run, 'mcp_tool_calls'), await digest2(run, 'audit_events')];
    await client.end();

    const report = await migrate(db.url, 'up');
    expect(report.applied).toContain(MIGRATION);

    client = await connect(db.url);
    const after = runSqlOn(client);
    for (const table of ['mcp_tool_calls', 'audit_events', 'mcp_confirmations']) {
      expect(
        (await after(`SELECT relkind FROM pg_class WHERE oid = to_regclass($1)`, [table]))[0]
          ?.relkind,
      ).toBe('p');
      expect(
        (await after(`SELECT to_regclass($1) AS t`, [`${table}_unpartitioned`]))[0]?.t,
      ).toBeNull();
    }
    expect([await digest2(after, 'mcp_tool_calls'), await digest2(after, 'audit_events')]).toEqual(
      before,
    );
    // The oldest row's day (or month) is the first partition, and the present and the days (or
    // months) ahead have theirs. Exact UTC boundaries: the oldest row is ~22 minutes younger than
    // 45 days, so "45 days ago" would be the day before whenever the test runs after 23:38 UTC.
    const calls = await listPartitions(after, spec('mcp_tool_calls'));
    expect(calls[0].from).toEqual(unitStart(oldest(callTimes), 'day'));
    expect(calls.at(-1)!.to.getTime()).toBeGreaterThanOrEqual(
      addUnits(unitStart(new Date(now), 'day'), 'day', 15).getTime(),
    );
    const events = await listPartitions(after, spec('audit_events'));
    expect(events[0].from).toEqual(unitStart(oldest(eventTimes), 'month'));
    expect(events.at(-1)!.to.getTime()).toBeGreaterThanOrEqual(
      addUnits(unitStart(new Date(now), 'month'), 'month', 3).getTime(),
    );
    const keys = await after(
      `SELECT conrelid::regclass::text AS t, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE conrelid IN ('mcp_tool_calls'::regclass, 'audit_events'::regclass, 'mcp_confirmations'::regclass)
          AND contype IN ('p', 'u', 'f') ORDER BY 1, 2`,
    );
    expect(keys.map((k) => `${String(k.t)} ${String(k.conname)} ${String(k.def)}`)).toEqual([
      'audit_events fk_audit_events_organization FOREIGN KEY (organization_id) REFERENCES organizations(id)',
      'audit_events pk_audit_events PRIMARY KEY (id, occurred_at)',
      'mcp_confirmations fk_mcp_confirmations_organization FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE',
      'mcp_confirmations fk_mcp_confirmations_token FOREIGN KEY (token_id) REFERENCES api_tokens(id) ON DELETE CASCADE',
      'mcp_confirmations fk_mcp_confirmations_user FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE',
      'mcp_confirmations pk_mcp_confirmations PRIMARY KEY (id, created_at)',
      'mcp_confirmations uq_mcp_confirmations_tool_call UNIQUE (tool_call_id, created_at)',
      'mcp_tool_calls fk_mcp_tool_calls_organization FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE',
      'mcp_tool_calls pk_mcp_tool_calls PRIMARY KEY (id, created_at)',
    ]);
    // Every index came along (as partitioned indexes: each partition has its own).
    const indexes = await after(
      `SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'mcp_tool_calls'::regclass ORDER BY 1`,
    );
    // The migration after this one (HistoryIndexes1765600000000) replaces some, each partition's
    // built on its own and attached: the parents' indexes are valid (an invalid one is never used).
    expect(indexes.map((i) => i.name)).toEqual([
      'ix_mcp_tool_calls_org_created_filters',
      'ix_mcp_tool_calls_org_token',
      'ix_mcp_tool_calls_org_user',
      'pk_mcp_tool_calls',
    ]);
    const invalid = await after(
      `SELECT x.indexrelid::regclass::text AS name FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid
        WHERE NOT x.indisvalid AND (c.relname LIKE 'mcp_tool_calls%' OR c.relname LIKE 'audit_events%'
                                    OR c.relname LIKE 'mcp_confirmations%')`,
    );
    expect(invalid).toEqual([]);
    const partitionIndexes = await after(
      `SELECT count(*)::int AS n FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid
        WHERE h.inhparent = 'ix_mcp_tool_calls_org_created_filters'::regclass`,
    );
    expect(partitionIndexes[0].n).toBe(calls.length);
    // Checks came along (a channel the table refuses) and so did the append-only triggers.
    await expect(
      after(
        `INSERT INTO audit_events (organization_id, actor_type, channel, action, resource_type, resource_id)
         VALUES ($1, 'admin_command', 'fax', 'x', 'organization', gen_random_uuid())`,
        [org],
      ),
    ).rejects.toThrow(/violates check constraint "ck_audit_events_/);
    await expect(
      after(`DELETE FROM audit_events WHERE organization_id = $1`, [org]),
    ).rejects.toThrow(/append-only/);
    await expect(after(`TRUNCATE audit_events`)).rejects.toThrow(/append-only/);
    await expect(
      after(`UPDATE audit_events SET action = 'x' WHERE organization_id = $1`, [org]),
    ).rejects.toThrow(/append-only/);
    // The search column is still generated and indexed.
    const searched = await after(
      `SELECT count(*)::int AS n FROM audit_events WHERE search_text IS NOT NULL`,
    );
    expect(searched[0].n).toBe(100);
  });
});

async function digest2(run: RunSql, table: string) {
  return (
    await run(
      `SELECT count(*)::int AS n, md5(string_agg(id::text, ',' ORDER BY id)) AS ids FROM ${table}`,
    )
  )[0];
}

describe('the partition maintainer', () => {
  let db: TestDatabase;
  let client: Client;
  let run: RunSql;

  beforeAll(async () => {
    db = await createTestDatabase();
    client = await connect(db.url);
    run = runSqlOn(client);
  });

  afterAll(async () => {
    await client?.end();
    await db?.dispose();
  });

  it('makes partitions ahead, rolls them forward and drops only whole partitions past retention', async () => {
    const now = new Date();
    const start = new Date(now.getTime() - 120 * DAY);
    await coverHistory(db.url, start.toISOString(), now.toISOString());
    const org = await seedOrganization(run);
    // One call every 6 hours for 120 days, one audit event a day.
    const callTimes = Array.from(
      { length: 480 },
      (_, i) => new Date(now.getTime() - i * 6 * 3_600_000 - 1000),
    );
    const eventTimes = Array.from(
      { length: 120 },
      (_, i) => new Date(now.getTime() - i * DAY - 1000),
    );
    await insertCalls(run, org, callTimes);
    await insertAuditEvents(run, org, eventTimes);
    // A tool called only 100 days ago (its day is dropped below), and one called then and today.
    await run(
      `INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, client_name, era, protocol_version,
                                   status, is_error, duration_ms, request_id, created_at)
       SELECT gen_random_uuid(), $1, gen_random_uuid(), gen_random_uuid(), tool, 'Claude', '2026-07-28',
              '2026-07-28', 'ok', false, 1.5, 'req', t
         FROM (VALUES ('aged_tool', $2::timestamptz), ('lasting_tool', $2::timestamptz), ('lasting_tool', $3::timestamptz)) AS c (tool, t)`,
      [
        org,
        new Date(now.getTime() - 100 * DAY).toISOString(),
        new Date(now.getTime() - 1000).toISOString(),
      ],
    );

    const drops: string[] = [];
    const report = await maintainPartitions(
      run,
      { mcp_tool_calls: 90, audit_events: 0, mcp_confirmations: 90 },
      now,
      (table, p) => drops.push(`${table} ${p.name}`),
    );
    const cutoff = now.getTime() - 90 * DAY;
    const calls = report!.find((r) => r.table === 'mcp_tool_calls')!;
    // Every dropped partition ended before the cutoff; the one holding the cutoff stays.
    expect(calls.dropped.length).toBeGreaterThanOrEqual(29);
    for (const p of calls.dropped) expect(p.to.getTime()).toBeLessThanOrEqual(cutoff);
    expect(calls.oldestFrom!.getTime()).toBe(unitStart(new Date(cutoff), 'day').getTime());
    expect(drops).toEqual(report!.flatMap((r) => r.dropped.map((p) => `${r.table} ${p.name}`)));
    // Exactly the rows of the dropped days are gone; audit (unlimited) lost nothing.
    const kept = callTimes.filter((t) => t.getTime() >= calls.oldestFrom!.getTime()).length + 1;
    expect(
      (
        await run(`SELECT count(*)::int AS n FROM mcp_tool_calls WHERE organization_id = $1`, [org])
      )[0].n,
    ).toBe(kept);
    expect(
      (
        await run(`SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1`, [org])
      )[0].n,
    ).toBe(120);
    expect(report!.find((r) => r.table === 'audit_events')!.dropped).toEqual([]);
    // The list's filter values follow: a tool whose every call was dropped is no longer listed.
    expect(
      (
        await run(
          `SELECT value FROM mcp_tool_call_filter_values WHERE organization_id = $1 AND field = 'tool' ORDER BY value`,
          [org],
        )
      ).map((r) => r.value),
    ).toEqual(['lasting_tool', 'list_accounts']);
    // Confirmations: whole months before the cutoff only.
    for (const p of report!.find((r) => r.table === 'mcp_confirmations')!.dropped) {
      expect(p.to.getTime()).toBeLessThanOrEqual(cutoff);
    }
    // Ahead: a call 14 days from now has its partition.
    expect(calls.aheadUntil!.getTime()).toBe(addUnits(unitStart(now, 'day'), 'day', 15).getTime());
    await insertCalls(run, org, [new Date(now.getTime() + 14 * DAY)]);

    // 10 days later the partitions roll: 10 new days ahead, 10 more days dropped.
    const later = new Date(now.getTime() + 10 * DAY);
    const rolled = (await maintainPartitions(
      run,
      { mcp_tool_calls: 90, audit_events: 0, mcp_confirmations: 90 },
      later,
    ))!.find((r) => r.table === 'mcp_tool_calls')!;
    expect(rolled.created.length).toBe(10);
    expect(rolled.dropped.length).toBe(10);
    expect(rolled.aheadUntil!.getTime()).toBe(
      addUnits(unitStart(later, 'day'), 'day', 15).getTime(),
    );
    // A second round at the same time changes nothing.
    const again = (await maintainPartitions(
      run,
      { mcp_tool_calls: 90, audit_events: 0, mcp_confirmations: 90 },
      later,
    ))!;
    expect(again.flatMap((r) => [...r.created, ...r.dropped.map((p) => p.name)])).toEqual([]);
  });

  it(
    'runs on one connection at a time (the others skip the round)',
    // The embedded engine is one session behind every connection (and serves one replica).
    skipWhen(NEEDS_REAL_POSTGRES),
    async () => {
      const other = await connect(db.url);
      try {
        const first = runSqlOn(client);
        let locked = false;
        // The first round pauses once it holds the lock, so the second one surely overlaps it.
        const slow: RunSql = async (text, params) => {
          const rows = await first(text, params);
          if (!locked && text.includes('pg_try_advisory_lock')) {
            locked = true;
            await delay(500);
          }
          return rows;
        };
        const retention = { mcp_tool_calls: 90, audit_events: 0, mcp_confirmations: 90 };
        const [a, b] = await Promise.all([
          maintainPartitions(slow, retention, new Date()),
          delay(100).then(() => maintainPartitions(runSqlOn(other), retention, new Date())),
        ]);
        expect(a).toBeDefined();
        expect(b).toBeUndefined();
        // Once the first round is over, the lock is free again.
        expect(await maintainPartitions(runSqlOn(other), retention, new Date())).toBeDefined();
      } finally {
        await other.end();
      }
    },
  );

  it(
    'the filter values stay true beside concurrent writers and the retention’s delete',
    // Two sessions at once; the embedded engine serialises them.
    skipWhen(NEEDS_REAL_POSTGRES),
    async () => {
      const org = await seedOrganization(run);
      const other = await connect(db.url);
      const insertCall = (on: Client, tool: string, at: string) =>
        on.query(
          `INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, client_name, era, protocol_version,
                                       status, is_error, duration_ms, request_id, created_at)
           VALUES (gen_random_uuid(), $1, gen_random_uuid(), gen_random_uuid(), $2, 'Claude', '2026-07-28',
                   '2026-07-28', 'ok', false, 1.5, 'req', $3)`,
          [org, tool, at],
        );
      const lastDay = async (tool: string) =>
        (
          await run(
            `SELECT last_day FROM mcp_tool_call_filter_values WHERE organization_id = $1 AND field = 'tool' AND value = $2`,
            [org, tool],
          )
        ).map((r) => (r.last_day instanceof Date ? r.last_day.toISOString() : String(r.last_day)));
      const today = new Date();
      const day = (offset: number) =>
        new Date(unitStart(today, 'day').getTime() + offset * DAY + 3_600_000).toISOString();
      await coverHistory(db.url, day(-5), day(1));
      try {
        // A new value in two transactions at once, the later day committed second: the later day wins.
        await client.query('BEGIN');
        await insertCall(client, 'new_tool', day(-1));
        const second = insertCall(other, 'new_tool', day(0)); // waits for the first transaction's value
        await delay(200);
        await client.query('COMMIT');
        await second;
        expect(await lastDay('new_tool')).toEqual([unitStart(today, 'day').toISOString()]);

        // The retention deletes a value whose calls aged out while a call of it is written now:
        // the call waits for the delete and records its value again.
        await insertCall(client, 'returning_tool', day(-3));
        await client.query('BEGIN');
        await client.query(
          `DELETE FROM mcp_tool_call_filter_values WHERE organization_id = $1 AND value = $2`,
          [org, 'returning_tool'],
        );
        const returning = insertCall(other, 'returning_tool', day(0));
        await delay(200);
        await client.query('COMMIT');
        await returning;
        expect(await lastDay('returning_tool')).toEqual([unitStart(today, 'day').toISOString()]);
      } finally {
        await client.query('ROLLBACK').catch(() => undefined);
        await other.end();
      }
    },
  );
});

describe('lists across partition boundaries', () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('keep their newest-first order and their cursors across days and months', async () => {
    // 2026-02-28 → 2026-03-01: a day and a month boundary (both kinds of partition).
    await coverHistory(t.db.url, '2026-02-27T00:00:00Z', '2026-03-02T00:00:00Z');
    const owner = await me(t);
    const org = owner.organizationId;
    const boundary = Date.parse('2026-03-01T00:00:00Z');
    const times = [-2, -1, -1, -0.001, 0, 0, 0, 0.001, 1, 2].map(
      (s) => new Date(boundary + s * 1000),
    );
    const client = await connect(t.db.url);
    try {
      const run = runSqlOn(client);
      await insertCalls(run, org, times);
      await insertAuditEvents(run, org, times);
      await run(
        `INSERT INTO mcp_confirmations (organization_id, token_id, user_id, tool, arguments_digest, target_type, target_id,
                                        message, status, protocol_version, created_at, expires_at, request_id)
         SELECT $1, $2, $3, 'delete_portal_user', repeat('a', 64), 'portal_user', 'x', 'Delete?', 'expired',
                '2026-07-28', t, t + interval '5 minutes', 'req'
           FROM unnest($4::timestamptz[]) AS t`,
        [org, owner.tokenId, owner.userId, times.map((d) => d.toISOString())],
      );
    } finally {
      await client.end();
    }
    const range = 'since=2026-02-27T00:00:00Z&until=2026-03-02T00:00:00Z';
    for (const [path, column, table] of [
      [`/v1/mcp/tool-calls?${range}`, 'created_at', 'mcp_tool_calls'],
      [`/v1/audit-events?${range}`, 'occurred_at', 'audit_events'],
      [`/v1/mcp/confirmations?${range}`, 'created_at', 'mcp_confirmations'],
    ] as const) {
      const expected = await sql<{ id: string }>(
        t,
        `SELECT id FROM ${table} WHERE organization_id = $1 AND ${column} >= '2026-02-27' AND ${column} < '2026-03-02'
          ORDER BY ${column} DESC, id DESC`,
        [org],
      );
      expect(expected).toHaveLength(10);
      const { rows, pages } = await walk(t, path, 3);
      expect(pages, path).toBe(4);
      expect(
        rows.map((r) => String(r.id)),
        path,
      ).toEqual(expected.map((r) => r.id));
    }
  });

  it('the audit export (API pages and the admin command lines) yields exactly the list API’s events', async () => {
    // The events of the previous test, across a month boundary, plus richer ones a day later.
    const owner = await me(t);
    await sql(
      t,
      `INSERT INTO audit_events (organization_id, occurred_at, actor_type, actor_user_id, token_id, channel, client_name,
                                 action, resource_type, resource_id, changes, request_id, actor_name, actor_email,
                                 token_name, token_kind, resource_label)
       SELECT $1, timestamptz '2026-03-01T12:00:00Z' + i * interval '1 minute', 'member', $2, $3, 'mcp', 'Claude',
              'portal_user.updated', 'portal_user', gen_random_uuid(),
              jsonb_build_object('name', jsonb_build_object('before', 'A' || i, 'after', 'B' || i)),
              'req-' || i, 'Owner', 'owner@example.com', 'pat', 'personal', 'user' || i || '@example.com'
         FROM generate_series(1, 7) AS i`,
      [owner.organizationId, owner.userId, owner.tokenId],
    );
    const range = 'since=2026-02-27T00:00:00Z&until=2026-03-02T00:00:00Z';
    const listed = (await walk(t, `/v1/audit-events?${range}`, 100)).rows;
    expect(listed).toHaveLength(17);

    const exported: Json[] = [];
    const cursors: Array<string | null> = [null];
    let last: Json;
    do {
      const cursor = cursors.at(-1);
      const page = await call(
        t,
        'GET',
        `/v1/audit-events/export?${range}&limit=4${cursor === null || cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      );
      expect(page.status).toBe(200);
      last = page.body;
      exported.push(...last.data);
      cursors.push(last.next_cursor);
    } while (last.data.length > 0 && cursors.length < 20);
    // 17 events in pages of 4, then an empty page that keeps the cursor (a SIEM asks again later).
    expect(cursors).toHaveLength(7);
    expect(cursors.at(-1)).toBe(cursors.at(-2));
    expect(exported).toEqual(listed.toReversed());

    const lines: string[] = [];
    const audit = t.server.app.get(AuditTrail);
    for await (const line of audit.exportLines(owner.organizationId, {
      since: '2026-02-27T00:00:00Z',
      until: '2026-03-02T00:00:00Z',
    })) {
      lines.push(line);
    }
    expect(lines.map((l) => JSON.parse(l))).toEqual(exported);
    // One object a line, in the API's field order.
    expect(lines.every((l) => l.endsWith('}\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
    expect(Object.keys(JSON.parse(lines[0]))).toEqual(Object.keys(listed[0]));
  });

  it('the export holds back the last minute (writes may still be committing)', async () => {
    const page = await call(
      t,
      'GET',
      `/v1/audit-events/export?since=${new Date(Date.now() - 30_000).toISOString()}`,
    );
    expect(page.status).toBe(200);
    expect(page.body.data).toEqual([]);
  });

  it('GET /v1/history/retention says how long each table is kept and how far back it goes', async () => {
    const r = await call(t, 'GET', '/v1/history/retention');
    expect(r.status).toBe(200);
    // The partitions the tests above made reach back to 27 February (calls: days; others: months).
    expect(r.body.data).toEqual([
      { table: 'mcp_tool_calls', retention_days: 90, data_since: '2026-02-27T00:00:00.000Z' },
      { table: 'audit_events', retention_days: null, data_since: '2026-02-01T00:00:00.000Z' },
      { table: 'mcp_confirmations', retention_days: 90, data_since: '2026-02-01T00:00:00.000Z' },
    ]);
    // audit.read, like the lists it describes.
    expect((await call(t, 'GET', '/v1/history/retention', { token: 'member' })).status).toBe(403);
  });
});
