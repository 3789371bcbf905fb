#!/usr/bin/env node
// `npm run build && node bench/history-indexes.mjs`: the history tables' indexes before and after
// migration HistoryIndexes1765600000000, side by side on one loaded database (real Postgres,
// DATABASE_URL; a fresh database, dropped afterwards). Loads BENCH_HISTORY_CALLS tool calls
// (2,000,000), BENCH_HISTORY_EVENTS audit events (1,000,000) and BENCH_HISTORY_CONFIRMATIONS
// confirmations (200,000) over 100 organisations and 60 days, builds both index sets, then in
// alternating rounds (BENCH_HISTORY_ROUNDS, 4) drops one set inside a transaction, times every list
// filter of the three tables (including values no row has) and the 24-hour series, first page and
// 50 cursors deep (BENCH_HISTORY_PER, 5 per round), the insert cost of 100-row batches, and rolls
// back. Prints a Markdown table, the index sizes, and the key lines of each statement's
// EXPLAIN (ANALYZE, BUFFERS) in both states. docs/benchmarks.md ("History indexes") has a run.
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import * as history from './lib/history.mjs';

const { DAYS, dist, loadToolCalls, ORGS, pct, root, statements } = history;
const { createPartitionsCovering, PARTITIONED_TABLES } = await import(
  dist('database/src/index.js')
);
const { CREATED, DROPPED } = await import(
  dist('database/src/migrations/1765600000000-history-indexes.js')
);

const CALLS = Number(process.env.BENCH_HISTORY_CALLS ?? 2_000_000);
const EVENTS = Number(process.env.BENCH_HISTORY_EVENTS ?? 1_000_000);
const CONF = Number(process.env.BENCH_HISTORY_CONFIRMATIONS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_HISTORY_ROUNDS ?? 4);
const PER = Number(process.env.BENCH_HISTORY_PER ?? 5);
const only = process.env.BENCH_HISTORY_ONLY
  ? new RegExp(process.env.BENCH_HISTORY_ONLY)
  : undefined;
const CHUNK = 500_000;
if (!process.env.DATABASE_URL) {
  process.stderr.write('bench/history-indexes.mjs needs DATABASE_URL (real Postgres)\n');
  process.exit(2);
}
const log = (m) => process.stderr.write(`[history-indexes] ${m}\n`);
const name = `bench_history_indexes_${Date.now().toString(36)}`;
const url = new URL(process.env.DATABASE_URL);
url.pathname = `/${name}`;
const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const db = new pg.Client({ connectionString: url.toString() });
try {
  execFileSync(process.execPath, [join(root, 'dist/apps/server/src/migrate.js'), 'up'], {
    env: { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await db.connect();
  const run = async (t, p) => (await db.query(t, p)).rows;
  const now = new Date();
  const from = new Date(now.getTime() - DAYS * 86_400_000);
  for (const spec of PARTITIONED_TABLES) await createPartitionsCovering(run, spec, from, now);
  await run(
    `INSERT INTO organizations (slug, name) SELECT 'bench-' || i, 'Bench ' || i FROM generate_series(1, ${ORGS}) i`,
  );
  await run(
    `CREATE TABLE bench_orgs AS SELECT row_number() OVER () - 1 AS n, id FROM organizations`,
  );
  const t = Date.now();
  await loadToolCalls(run, {
    calls: CALLS,
    chunk: CHUNK,
    now,
    progress: (loaded) => log(`calls ${loaded} ${(Date.now() - t) / 1000}s`),
  });
  for (let done = 0; done < EVENTS; done += CHUNK) {
    const n = Math.min(CHUNK, EVENTS - done);
    await run(
      `INSERT INTO audit_events (organization_id, occurred_at, actor_type, actor_user_id, token_id, channel, client_name,
                                 action, resource_type, resource_id, changes, actor_name, actor_email, token_name,
                                 token_kind, resource_label, request_id)
       SELECT o.id, $2::timestamptz - ((i::float8 / $3) * interval '${DAYS} days'), 'member',
              md5('user-' || (i % 2000))::uuid, md5('token-' || (i % 4000))::uuid, (ARRAY['api','mcp'])[1 + i % 2], NULL,
              (ARRAY['portal_user.created','portal_user.updated','portal_user.deleted','account.updated'])[1 + i % 4],
              (ARRAY['portal_user','portal_user','portal_user','account'])[1 + i % 4], md5('pu-' || (i % 50000))::uuid, '{}'::jsonb, 'Person ' || (i % 2000),
              'person' || (i % 2000) || '@example.com', 'token ' || (i % 4000), 'personal',
              'customer' || i || '@customers.example', CASE WHEN i % 3 = 1 THEN 'req-a' || i END
         FROM generate_series($1::bigint, $1::bigint + $4 - 1) i
         JOIN bench_orgs o ON o.n = i % ${ORGS}`,
      [done, now.toISOString(), EVENTS, n],
    );
    log(`events ${done + n} ${(Date.now() - t) / 1000}s`);
  }
  await run(`SET session_replication_role = replica`); // the confirmations' people and tokens are not loaded
  await run(
    `INSERT INTO mcp_confirmations (organization_id, token_id, user_id, tool, arguments_digest, target_type, target_id, message,
     status, protocol_version, client_name, created_at, expires_at, decided_at, tool_call_id, request_id)
   SELECT o.id, md5('token-' || (i % 4000))::uuid, md5('user-' || (i % 2000))::uuid, 'tool_' || (i % 6),
     repeat('a', 64), 'portal_user', 'x' || i, 'Delete customer ' || i,
     s.st, '2026-07-28', 'client-' || (i % 4), c.at, c.at + interval '5 minutes',
     CASE WHEN s.st IN ('consumed','declined') THEN c.at + interval '1 minute' END,
     CASE WHEN s.st = 'consumed' THEN gen_random_uuid() END, 'req-c' || i
   FROM generate_series(0, ${CONF} - 1) i
   JOIN bench_orgs o ON o.n = i % ${ORGS}
   CROSS JOIN LATERAL (SELECT $1::timestamptz - ((i::float8 / ${CONF}) * interval '${DAYS} days') - interval '10 minutes' AS at) c
   CROSS JOIN LATERAL (SELECT CASE WHEN i % 10 < 7 THEN 'consumed' WHEN i % 10 < 9 THEN 'declined' WHEN i % 1000 = 9 THEN 'pending' ELSE 'expired' END AS st) s`,
    [now.toISOString()],
  );
  await run(`RESET session_replication_role`);
  // Both index sets: the migration made the new ones; the old ones as the earlier migrations had them.
  for (const i of DROPPED) {
    await run(
      `CREATE INDEX ${i.name} ON ${i.table} (${i.columns})${i.where ? ` WHERE ${i.where}` : ''}`,
    );
  }
  await run('VACUUM ANALYZE');
  log(`loaded and indexed in ${((Date.now() - t) / 1000).toFixed(0)} s`);
  const orgs = (await run(`SELECT id FROM bench_orgs ORDER BY n`)).map((r) => r.id);
  const md5uuid = async (s) => (await run(`SELECT md5($1)::uuid AS u`, [s]))[0].u;
  const user9 = await md5uuid('user-9'),
    token7 = await md5uuid('token-7'),
    pu = await md5uuid('pu-12345');
  const day = 86_400_000,
    iso = (ms) => new Date(now.getTime() - ms).toISOString();
  // org n: user-k present iff k % 100 == n (i % 2000 = k and i % 100 = n) -> user9 only in org 9; token7 only in org 7.
  const cases = [
    ['calls', 'no filter', {}, true],
    ['calls', 'tool', { tool: 'tool_3' }, true],
    ['calls', 'tool absent', { tool: 'tool_99' }, false],
    ['calls', 'status common', { status: 'ok' }, true],
    ['calls', 'status rare', { status: 'VALIDATION_ERROR' }, true],
    ['calls', 'status absent', { status: 'RATE_LIMITED' }, false],
    ['calls', 'person (own org)', { userId: user9 }, true, 9],
    ['calls', 'person absent', { userId: user9 }, false],
    ['calls', 'token (own org)', { tokenId: token7 }, true, 7],
    ['calls', 'token absent', { tokenId: token7 }, false],
    ['calls', 'client', { clientName: 'client-2' }, true],
    ['calls', 'client absent', { clientName: 'nobody' }, false],
    ['calls', 'last 24 h', { since: iso(day) }, true],
    ['calls', 'a day 30 days ago', { since: iso(31 * day), until: iso(30 * day) }, true],
    ['calls', 'tool + status rare', { tool: 'tool_0', status: 'VALIDATION_ERROR' }, true],
    ['calls', 'person + tool', { userId: user9, tool: 'tool_9' }, true, 9],
    ['audit', 'no filter', {}, true],
    ['audit', 'action', { action: 'portal_user.deleted' }, true],
    ['audit', 'action absent', { action: 'token.revoked' }, false],
    ['audit', 'person (own org)', { actorUserId: user9 }, true, 9],
    ['audit', 'person absent', { actorUserId: user9 }, false],
    ['audit', 'resource type', { resourceType: 'account' }, true],
    ['audit', 'resource', { resourceType: 'portal_user', resourceId: pu }, false, 45],
    ['audit', 'channel', { channel: 'mcp' }, true],
    ['audit', 'channel absent', { channel: 'cli' }, false],
    ['audit', 'q e-mail', { q: 'customer12345@customers' }, false, 45],
    ['audit', 'q absent', { q: 'nobody@nowhere' }, false],
    ['audit', 'last 24 h', { since: iso(day) }, true],
    ['conf', 'no filter', {}, true],
    ['conf', 'status pending', { status: 'pending' }, false],
    ['conf', 'status expired', { status: 'expired' }, true],
    ['conf', 'status consumed', { status: 'consumed' }, true],
    ['conf', 'tool', { tool: 'tool_3' }, true],
    ['conf', 'person (own org)', { userId: user9 }, true, 9],
    ['conf', 'person absent', { userId: user9 }, false],
    ['series', '24 h', {}, false],
    ['series', '24 h, tool', { tool: 'tool_3' }, false],
  ];
  const build = (kind, f, org, after) => {
    const base = { organizationId: org, take: 51, after, ...f };
    if (kind === 'calls') return statements.toolCallsListQuery(base);
    if (kind === 'audit') return statements.auditEventsListQuery(base);
    if (kind === 'conf') return statements.confirmationsListQuery(base);
    return statements.toolCallSeriesQuery({
      organizationId: org,
      since: iso(day),
      until: now.toISOString(),
      ...f,
    });
  };
  const timed = (q) => history.timed(run, q);
  const summary = (plan) => {
    const lines = plan.map((r) => r['QUERY PLAN']);
    const idx = new Map();
    for (const l of lines) {
      const m = l.match(
        /(Index Scan|Index Only Scan|Bitmap Index Scan|Seq Scan)( Backward)?( using (\S+))? on (\S+)/,
      );
      if (m) {
        const name = (m[4] ?? m[5])
          .replace(/^mcp_tool_calls_p\d+_|^audit_events_p\d+_|^mcp_confirmations_p\d+_/, '')
          .replace(/^(mcp_tool_calls|audit_events|mcp_confirmations)_p\d+$/, '$1(part)');
        const k = `${m[1]}${m[2] ?? ''} ${name}`;
        idx.set(k, (idx.get(k) ?? 0) + 1);
      }
    }
    const top = lines
      .slice(0, 3)
      .map((l) => l.trim().replace(/\s+\(cost=[^)]*\)/, ''))
      .join(' | ');
    const sorts = lines.filter((l) => /Sort/.test(l)).length;
    const buf = lines.find((l) => /Buffers:/.test(l))?.trim();
    const pt = lines.find((l) => /Planning Time/.test(l))?.trim(),
      et = lines.find((l) => /Execution Time/.test(l))?.trim();
    const never = lines.filter((l) => /never executed/.test(l)).length;
    return `${[...idx].map(([k, v]) => `${k}×${v}`).join(', ')}; sorts ${sorts}; never-executed ${never}\n    ${top}\n    ${buf}; ${pt}; ${et}`;
  };

  const MODES = {
    before: `DROP INDEX ${CREATED.map((i) => i.name).join(', ')}`,
    after: `DROP INDEX ${DROPPED.map((i) => i.name).join(', ')}`,
  };
  const samples = {}; // mode -> label -> {first:[], deep:[]}
  const insertUs = { before: [], after: [] },
    auditUs = { before: [], after: [] };
  const sel = cases.filter(([kind, label]) => !only || only.test(`${kind}: ${label}`));
  const orgFor = (r, fixedOrg) =>
    orgs[fixedOrg ?? ((r * 37) % 100 === 9 || (r * 37) % 100 === 7 ? 11 : (r * 37) % 100)];
  const pass = async (mode, round, n, record) => {
    for (const [kind, label, f, deep, fixedOrg] of sel) {
      const s = ((samples[mode] ??= {})[`${kind}: ${label}`] ??= {
        first: [],
        deep: [],
        deepQ: undefined,
      });
      for (let k = 0; k < n; k++) {
        const org = orgFor(round * PER + k, fixedOrg);
        const page = await timed(build(kind, f, org));
        if (record) s.first.push(page.ms);
        if (deep && kind !== 'series') {
          let rows = page.rows,
            last;
          for (let p = 1; p < 50 && rows.length === 51; p++) {
            const at = rows.at(-2);
            s.deepQ = build(kind, f, org, [at.cursor_ts, at.id]);
            last = await timed(s.deepQ);
            rows = last.rows;
          }
          if (last && record) s.deep.push(last.ms);
        }
      }
    }
  };
  const insertBatch = async () => {
    const t0 = process.hrtime.bigint();
    await run(`INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, client_name, era, protocol_version,
       status, is_error, duration_ms, confirmation_id, request_id, arguments_digest, created_at)
     SELECT gen_random_uuid(), o.id, md5('token-' || (i % 4000))::uuid, md5('user-' || (i % 2000))::uuid, 'tool_' || (i % 12),
       'client-' || (i % 4), '2026-07-28', '2026-07-28', 'ok', false, 3.5, NULL, 'req-x' || i, NULL, now()
       FROM generate_series(1, 100) i JOIN bench_orgs o ON o.n = i % 100`);
    const t1 = process.hrtime.bigint();
    await run(`INSERT INTO audit_events (organization_id, actor_type, actor_user_id, token_id, channel, action, resource_type, resource_id,
       changes, actor_name, actor_email, token_name, token_kind, resource_label, request_id)
     SELECT o.id, 'member', md5('user-' || (i % 2000))::uuid, md5('token-' || (i % 4000))::uuid, 'mcp', 'portal_user.updated', 'portal_user',
       gen_random_uuid(), '{}'::jsonb, 'Person', 'p@example.com', 'token', 'personal', 'x' || i || '@customers.example', 'req-y' || i
       FROM generate_series(1, 100) i JOIN bench_orgs o ON o.n = i % 100`);
    const t2 = process.hrtime.bigint();
    return [Number(t1 - t0) / 1e5, Number(t2 - t1) / 1e5]; // µs per row
  };
  const plans = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of round % 2 ? ['after', 'before'] : ['before', 'after']) {
      await run('BEGIN');
      await run(MODES[mode]);
      await pass(mode, round, 1, false); // warm the relcache and plans after the DROP
      await pass(mode, round, PER, true);
      for (let b = 0; b < 10; b++) {
        const [c, a] = await insertBatch();
        if (b > 0) {
          insertUs[mode].push(c);
          auditUs[mode].push(a);
        }
      }
      if (round === ROUNDS - 1) {
        for (const [kind, label, f, , fixedOrg] of sel) {
          const q = build(kind, f, orgs[fixedOrg ?? 11]);
          const p = await run(`EXPLAIN (ANALYZE, BUFFERS) ${q.text}`, q.params);
          const dq = samples[mode][`${kind}: ${label}`].deepQ;
          const dp = dq ? await run(`EXPLAIN (ANALYZE, BUFFERS) ${dq.text}`, dq.params) : undefined;
          (plans[mode] ??= {})[`${kind}: ${label}`] = [summary(p), dp && summary(dp)];
        }
      }
      await run('ROLLBACK');
      log(`round ${round} ${mode} done`);
    }
  }
  const f1 = (x) => (x === undefined ? '–' : x.toFixed(1));
  console.log(
    '| statement | before first p50 / p95 | after first p50 / p95 | before deep p50 / p95 | after deep p50 / p95 |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  for (const [kind, label] of sel) {
    const k = `${kind}: ${label}`,
      b = samples.before[k],
      a = samples.after[k];
    const d = (s) =>
      s.deep.length ? `${f1(pct(s.deep, 50))} / ${f1(pct(s.deep, 95))} ms (${s.deep.length})` : '–';
    console.log(
      `| ${k} | ${f1(pct(b.first, 50))} / ${f1(pct(b.first, 95))} ms | ${f1(pct(a.first, 50))} / ${f1(pct(a.first, 95))} ms | ${d(b)} | ${d(a)} |`,
    );
  }
  const med = (xs) => pct(xs, 50);
  console.log(
    `\ninsert mcp_tool_calls 100-row batch, µs/row median (9 batches × ${ROUNDS} rounds): before ${f1(med(insertUs.before))}, after ${f1(med(insertUs.after))}`,
  );
  console.log(
    `insert audit_events 100-row batch, µs/row median: before ${f1(med(auditUs.before))}, after ${f1(med(auditUs.after))}`,
  );
  for (const mode of ['before', 'after']) {
    console.log(`\n## plans ${mode}`);
    for (const [k, [p, dp]] of Object.entries(plans[mode]))
      console.log(`${k}\n  first: ${p}${dp ? `\n  deep:  ${dp}` : ''}`);
  }
  const sizes = await run(
    `WITH n AS (SELECT 'mcp_tool_calls' AS tbl, count(*) AS n FROM mcp_tool_calls UNION ALL
                SELECT 'audit_events', count(*) FROM audit_events UNION ALL SELECT 'mcp_confirmations', count(*) FROM mcp_confirmations)
     SELECT t.relname AS tbl, i.relname AS index, sum(pg_relation_size(p.relid))::float8 / max(n.n) AS per_row
       FROM pg_class i JOIN pg_index x ON x.indexrelid = i.oid JOIN pg_class t ON t.oid = x.indrelid JOIN n ON n.tbl = t.relname
      CROSS JOIN LATERAL pg_partition_tree(i.oid) p GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  console.log('\n## index bytes per row (both sets built by CREATE INDEX on the loaded tables)');
  for (const s of sizes) console.log(`${s.tbl} ${s.index}: ${Number(s.per_row).toFixed(1)}`);
} finally {
  await db.end().catch(() => undefined);
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
}
