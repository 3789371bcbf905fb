#!/usr/bin/env node
// `npm run bench:history` ("npm run build && node bench/history.mjs"): the call history and the
// audit trail at scale, on real Postgres (DATABASE_URL; a fresh database, dropped afterwards).
// Loads BENCH_HISTORY_CALLS tool calls (default 10,000,000) and BENCH_HISTORY_EVENTS audit events
// (2,000,000) over 100 organisations and 60 days, generated in SQL into the migrated, partitioned
// tables, then times the statements the repositories run (imported from dist/): every list filter's
// first page and a page 50 cursors deep (p50/p95), the console's 24-hour series, `q` by a deleted
// person's e-mail, a partition drop under a concurrent insert load, the history writer's insert
// into the loaded table against a table holding no history with today's partition at the same
// fill (and, apart, against an empty partition), and table and index bytes per row. Prints Markdown; `--write-doc` (or
// BENCH_DOC=1) rewrites the `history-postgres` section of docs/benchmarks.md. `--embedded` runs
// the same on the embedded engine (PGlite, in this process, on a temporary data directory) and
// writes the `history-embedded` section.

import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import * as history from './lib/history.mjs';
import { writeDocSection } from './lib/report.mjs';

const { compareInserts, DAYS, dist, loadToolCalls, ORGS, pct, root, statements } = history;
const { createPartitionsCovering, EmbeddedPostgres, listPartitions, migrate, PARTITIONED_TABLES } =
  await import(dist('database/src/index.js'));
const EMBEDDED = process.argv.includes('--embedded');

const CALLS = Number(process.env.BENCH_HISTORY_CALLS ?? 10_000_000);
const EVENTS = Number(process.env.BENCH_HISTORY_EVENTS ?? 2_000_000);
const RUNS = Number(process.env.BENCH_HISTORY_RUNS ?? 20);
const CHUNK = 1_000_000;
const admin = process.env.DATABASE_URL;
if (!admin && !EMBEDDED) {
  process.stderr.write('bench:history needs DATABASE_URL (real Postgres) or --embedded\n');
  process.exit(2);
}
const log = (m) => process.stderr.write(`[bench:history] ${m}\n`);
const name = `bench_history_${Date.now().toString(36)}`;
const adminClient = EMBEDDED ? undefined : new pg.Client({ connectionString: admin });
await adminClient?.connect();
const started = Date.now();
const now = new Date();
const opened = [];
// A database of the migrated schema with the partitions of the last DAYS days and the ORGS
// organisations (and their temporary `bench_orgs` (n, id) table): the one loaded with the history,
// and, for the insert comparison, two that hold none. On Postgres a database of its own each; on
// the embedded engine an engine each (PGlite serves one database), on a data directory of its own.
const open = async (suffix) => {
  const entry = { dbName: `${name}${suffix}` };
  opened.push(entry);
  if (EMBEDDED) {
    entry.dataDir = await mkdtemp(join(tmpdir(), 'bench-history-'));
    entry.engine = await EmbeddedPostgres.start({ dataDir: entry.dataDir });
  } else {
    await adminClient.query(`CREATE DATABASE ${entry.dbName}`);
  }
  const url = new URL(entry.engine?.url ?? admin);
  if (!EMBEDDED) url.pathname = `/${entry.dbName}`;
  if (EMBEDDED) {
    // In this process: the engine answers on this event loop, which a child process's wait would block.
    await migrate(url.toString(), 'up');
  } else {
    execFileSync(process.execPath, [join(root, 'dist/apps/server/src/migrate.js'), 'up'], {
      env: { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  entry.client = new pg.Client({ connectionString: url.toString() });
  await entry.client.connect();
  const run = async (text, params) => (await entry.client.query(text, params)).rows;
  const from = new Date(now.getTime() - DAYS * 86_400_000);
  for (const spec of PARTITIONED_TABLES) await createPartitionsCovering(run, spec, from, now);
  const orgs = (
    await run(
      `INSERT INTO organizations (slug, name) SELECT 'bench-' || i, 'Bench ' || i FROM generate_series(1, ${ORGS}) i RETURNING id`,
    )
  ).map((r) => r.id);
  await run(
    `CREATE TEMP TABLE bench_orgs AS SELECT row_number() OVER () - 1 AS n, id FROM organizations`,
  );
  return { run, orgs, url, entry };
};
const close = async (entry) => {
  await entry.client?.end().catch(() => undefined);
  entry.client = undefined;
  await adminClient
    ?.query(`DROP DATABASE IF EXISTS ${entry.dbName} WITH (FORCE)`)
    .catch(() => undefined);
  await entry.engine?.stop();
  entry.engine = undefined;
  if (entry.dataDir !== undefined) await rm(entry.dataDir, { recursive: true, force: true });
  entry.dataDir = undefined;
};
try {
  const { run, orgs, url } = await open('');

  // The load, in SQL: rows spread over the organisations, 60 days, tools, statuses, people, tokens.
  const loadStart = Date.now();
  await loadToolCalls(run, {
    calls: CALLS,
    chunk: CHUNK,
    now,
    progress: (loaded, seconds) => log(`calls ${loaded}/${CALLS} (${seconds.toFixed(1)} s)`),
  });
  const callsLoadS = (Date.now() - loadStart) / 1000;
  const eventsStart = Date.now();
  for (let done = 0; done < EVENTS; done += CHUNK) {
    const n = Math.min(CHUNK, EVENTS - done);
    await run(
      `INSERT INTO audit_events (organization_id, occurred_at, actor_type, actor_user_id, token_id, channel, client_name,
                                 action, resource_type, resource_id, changes, actor_name, actor_email, token_name,
                                 token_kind, resource_label)
       SELECT o.id, $2::timestamptz - ((i::float8 / $3) * interval '${DAYS} days'), 'member',
              md5('user-' || (i % 2000))::uuid, md5('token-' || (i % 4000))::uuid, 'api', NULL,
              (ARRAY['portal_user.created','portal_user.updated','portal_user.deleted','account.updated'])[1 + i % 4],
              'portal_user', md5('pu-' || i)::uuid, '{}'::jsonb, 'Person ' || (i % 2000),
              'person' || (i % 2000) || '@example.com', 'token ' || (i % 4000), 'personal',
              'customer' || i || '@customers.example'
         FROM generate_series($1::bigint, $1::bigint + $4 - 1) i
         JOIN bench_orgs o ON o.n = i % ${ORGS}`,
      [done, now.toISOString(), EVENTS, n],
    );
    log(`events ${done + n}/${EVENTS}`);
  }
  const eventsLoadS = (Date.now() - eventsStart) / 1000;
  // A table that has held months of calls has been vacuumed by autovacuum along the way (its
  // pages all-visible, their hint bits set); one just filled by a bulk insert has not, and its
  // first readers and the autovacuum it sets off (the insert threshold) would be what the lines
  // below measure. VACUUM (ANALYZE) brings it to that steady state before anything is timed.
  await run('VACUUM (ANALYZE) mcp_tool_calls');
  await run('VACUUM (ANALYZE) audit_events');
  // And the pages the load and the vacuum dirtied written out: a checkpoint spreading gigabytes
  // over the next minutes would otherwise be timed with the first statements (a page of tool_3
  // at 626 ms p95 against 5–9 ms for each organisation measured alone).
  await run('CHECKPOINT');

  const timed = (q) => history.timed(run, q);
  const results = [];
  const measure = async (label, build, deep) => {
    const first = [];
    const deepMs = [];
    for (let r = 0; r < RUNS; r++) {
      const org = orgs[(r * 37) % ORGS];
      const page = await timed(build(org, undefined));
      first.push(page.ms);
      if (deep) {
        let rows = page.rows;
        let last;
        for (let p = 1; p < 50 && rows.length > 0; p++) {
          const at = rows.at(-1);
          last = await timed(build(org, [at.cursor_ts, at.id]));
          rows = last.rows;
        }
        if (last !== undefined) deepMs.push(last.ms);
      }
    }
    // What the database itself does for one of those first pages (the last run's organisation):
    // execution and planning time and the buffers read, apart from waiting for a CPU.
    const q = build(orgs[((RUNS - 1) * 37) % ORGS], undefined);
    const [{ Plan: plan, 'Planning Time': planning, 'Execution Time': execution }] = (
      await run(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${q.text}`, q.params)
    )[0]['QUERY PLAN'];
    results.push({
      label,
      plan: `${execution.toFixed(1)} / ${planning.toFixed(1)} ms, ${plan['Shared Hit Blocks'] + plan['Shared Read Blocks']} buffers (${plan['Shared Read Blocks']} read)`,
      p50: pct(first, 50),
      p95: pct(first, 95),
      deep50: deepMs.length ? pct(deepMs, 50) : undefined,
      deep95: deepMs.length ? pct(deepMs, 95) : undefined,
    });
    log(`${label}: p50 ${pct(first, 50).toFixed(1)} ms, p95 ${pct(first, 95).toFixed(1)} ms`);
  };
  const page = 51;
  const call = (extra) => (org, after) =>
    statements.toolCallsListQuery({ organizationId: org, take: page, after, ...extra });
  await measure('calls: no filter', call({}), true);
  await measure('calls: tool', call({ tool: 'tool_3' }), true);
  // A value no row of the organisation has: the page walks all of its history (the worst case).
  await measure('calls: tool no call has', call({ tool: 'tool_99' }), false);
  await measure('calls: status (rare)', call({ status: 'VALIDATION_ERROR' }), true);
  await measure(
    'calls: person',
    call({ userId: (await run(`SELECT md5('user-9')::uuid AS u`))[0].u }),
    true,
  );
  await measure(
    'calls: token',
    call({ tokenId: (await run(`SELECT md5('token-7')::uuid AS t`))[0].t }),
    true,
  );
  await measure('calls: client', call({ clientName: 'client-2' }), true);
  await measure('calls: status + tool', call({ status: 'input_required', tool: 'tool_7' }), true);
  await measure(
    'calls: last 24 h',
    call({ since: new Date(now.getTime() - 86_400_000).toISOString() }),
    true,
  );
  const event = (extra) => (org, after) =>
    statements.auditEventsListQuery({ organizationId: org, take: page, after, ...extra });
  await measure('audit: no filter', event({}), true);
  await measure('audit: action', event({ action: 'portal_user.deleted' }), true);
  await measure('audit: channel', event({ channel: 'api' }), true);
  await measure('audit: resource type', event({ resourceType: 'portal_user' }), true);
  await measure(
    'audit: person',
    event({ actorUserId: (await run(`SELECT md5('user-9')::uuid AS u`))[0].u }),
    true,
  );
  await measure(
    'audit: q = a (deleted) customer e-mail',
    event({ q: 'customer12345@customers' }),
    false,
  );
  await measure(
    'confirmations: no filter',
    (org, after) => statements.confirmationsListQuery({ organizationId: org, take: page, after }),
    false,
  );
  await measure(
    'console: 24-h activity series',
    (org) =>
      statements.toolCallSeriesQuery({
        organizationId: org,
        since: new Date(now.getTime() - 86_400_000).toISOString(),
        until: now.toISOString(),
      }),
    false,
  );

  // Insert cost: the history writer's own statement (TOOL_CALLS_INSERT, 100 rows a batch) into
  // three databases side by side. The writer inserts into today's partition only, so what the size
  // of the history can cost is told apart from what today's partition's own rows cost:
  //   loaded   the history loaded above, today's partition filled to a day of its calls (DAY_FILL);
  //   today    no history, today's partition filled to the same DAY_FILL rows;
  //   empty    nothing at all (the partition's first rows, what every day starts from).
  // loaded against today is the cost of the history's size; today against empty is the cost of
  // the day's own rows (a partition's indexes growing through the day), reported on its own.
  // Side by side, the same rows and the same settling before (compareInserts).
  const DAY_FILL = Math.round(CALLS / DAYS);
  const today = await open('_today');
  const empty = await open('_empty');
  log(`insert comparison: today's partitions filled to ${DAY_FILL} rows`);
  const cost = await compareInserts(
    [
      { key: 'loaded', run, orgs, fill: true },
      { key: 'today', run: today.run, orgs: today.orgs, fill: true },
      { key: 'empty', run: empty.run, orgs: empty.orgs, fill: false },
    ],
    { now, dayFill: DAY_FILL },
  );
  // Per round, the ratio of each pair measured in it: their median (what a burst of another
  // process's work in one round cannot move) and their spread (how far any one can be read).
  const spread = (a, b) => {
    const r = cost[a].rounds.map((ns, k) => ns / cost[b].rounds[k] - 1).sort((x, y) => x - y);
    const p = (x) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(0)} %`;
    return `median of the rounds ${p(r[Math.floor(r.length / 2)])}, from ${p(r[0])} to ${p(r.at(-1))}`;
  };
  const change = (a, b) =>
    `${cost[a].us / cost[b].us >= 1 ? '+' : ''}${((cost[a].us / cost[b].us - 1) * 100).toFixed(0)} %`;
  const loadAverage = loadavg()[0];
  for (const c of Object.values(cost))
    log(
      `insert, ${c.key}: ${c.us.toFixed(1)} µs per row (today's partition ${c.todayRows} rows); first batch ${c.plan}`,
    );
  await close(today.entry);
  await close(empty.entry);

  // A partition drop (the oldest day) while another connection inserts batches without pause.
  const inserter = new pg.Client({ connectionString: url.toString() });
  await inserter.connect();
  let stop = false;
  let worstInsertMs = 0;
  const inserts = (async () => {
    while (!stop) {
      const t0 = process.hrtime.bigint();
      await inserter.query(
        `INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, era, protocol_version, status,
                                     is_error, duration_ms, request_id)
         SELECT gen_random_uuid(), $1, gen_random_uuid(), gen_random_uuid(), 'tool_1', '2026-07-28', '2026-07-28',
                'ok', false, 1, 'req' FROM generate_series(1, 100)`,
        [orgs[0]],
      );
      worstInsertMs = Math.max(worstInsertMs, Number(process.hrtime.bigint() - t0) / 1e6);
    }
  })();
  await new Promise((r) => setTimeout(r, 500));
  const callsSpec = PARTITIONED_TABLES.find((s) => s.table === 'mcp_tool_calls');
  const oldest = (await listPartitions(run, callsSpec))[0];
  const rowsInOldest = (await run(`SELECT count(*)::int AS n FROM ${oldest.name}`))[0].n;
  const baselineWorst = worstInsertMs;
  worstInsertMs = 0;
  const d0 = process.hrtime.bigint();
  await run(`ALTER TABLE mcp_tool_calls DETACH PARTITION ${oldest.name} CONCURRENTLY`);
  await run(`DROP TABLE ${oldest.name}`);
  const dropMs = Number(process.hrtime.bigint() - d0) / 1e6;
  await new Promise((r) => setTimeout(r, 300));
  stop = true;
  await inserts;
  await inserter.end();

  const sizes = await run(
    `SELECT t.relname AS t,
            sum(pg_table_size(c.oid))::bigint AS table_bytes, sum(pg_indexes_size(c.oid))::bigint AS index_bytes
       FROM pg_class t JOIN pg_inherits i ON i.inhparent = t.oid JOIN pg_class c ON c.oid = i.inhrelid
      WHERE t.relname IN ('mcp_tool_calls', 'audit_events') GROUP BY t.relname`,
  );
  const counts = Object.fromEntries(
    await Promise.all(
      ['mcp_tool_calls', 'audit_events'].map(async (t) => [
        t,
        (await run(`SELECT count(*)::bigint AS n FROM ${t}`))[0].n,
      ]),
    ),
  );
  const ms = (x) => (x === undefined ? '–' : x.toFixed(1));
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 10)} on this repository's shared 2-core machine, ${EMBEDDED ? 'the embedded engine (PGlite, in the bench process), Postgres' : 'Postgres'} ${(await run('SHOW server_version'))[0].server_version}, ${EMBEDDED ? "the embedded engine's settings" : 'default settings'}:`,
    `${CALLS.toLocaleString('en')} tool calls and ${EVENTS.toLocaleString('en')} audit events over ${ORGS} organisations and ${DAYS} days (generated in SQL; calls loaded in ${callsLoadS.toFixed(0)} s, events in ${eventsLoadS.toFixed(0)} s; the whole run ${((Date.now() - started) / 1000).toFixed(0)} s).`,
    `Command: \`BENCH_HISTORY_CALLS=${CALLS} BENCH_HISTORY_EVENTS=${EVENTS} ${EMBEDDED ? '' : 'DATABASE_URL=… '}npm run bench:history -- ${EMBEDDED ? '--embedded ' : ''}--write-doc\`. ${RUNS} runs per line, each on another organisation; a page is 50 rows (51 fetched).`,
    '',
    '| statement | first page p50 | p95 | 50 cursors deep p50 | p95 | one first page: execution / planning, buffers |',
    '| --- | --- | --- | --- | --- | --- |',
    ...results.map(
      (r) =>
        `| ${r.label} | ${ms(r.p50)} ms | ${ms(r.p95)} ms | ${ms(r.deep50)} ms | ${ms(r.deep95)} ms | ${r.plan} |`,
    ),
    '',
    `Insert (the history writer's 100-row batch statement, \`TOOL_CALLS_INSERT\`; 10,000 rows in 100 batches per case, side by side in 20 rounds of 5 batches, after 10 untimed batches, \`VACUUM (ANALYZE)\` of today's partition and one \`CHECKPOINT\`; load average ${loadAverage.toFixed(1)}):`,
    '',
    "| case | today's partition before | its indexes | µs per row | first batch (EXPLAIN ANALYZE, BUFFERS, WAL) |",
    '| --- | --- | --- | --- | --- |',
    ...[
      ['loaded', `the history (${CALLS.toLocaleString('en')} calls) + today`],
      ['today', 'no history, today only'],
      ['empty', 'nothing (a new day)'],
    ].map(
      ([key, label]) =>
        `| ${label} | ${cost[key].todayRows.toLocaleString('en')} rows | ${cost[key].todayIndexMb.toFixed(1)} MB | ${cost[key].us.toFixed(1)} | ${cost[key].plan} |`,
    ),
    '',
    `The history's size (loaded against today, today's partition filled to a day of this history's calls, ${DAY_FILL.toLocaleString('en')}, in both): ${change('loaded', 'today')} (${spread('loaded', 'today')}). The day's own rows (today against empty, not the history's size): ${change('today', 'empty')} (${spread('today', 'empty')}).`,
    `Partition drop (\`DETACH … CONCURRENTLY\` + \`DROP\`, the oldest day, ${rowsInOldest.toLocaleString('en')} rows) while another connection inserted 100-row batches without pause: ${dropMs.toFixed(0)} ms; the slowest insert batch during it ${worstInsertMs.toFixed(1)} ms (before it: ${baselineWorst.toFixed(1)} ms).`,
    ...sizes.map((s) => {
      const n = Number(counts[s.t]);
      return `\`${s.t}\`: ${(Number(s.table_bytes) / n).toFixed(0)} table bytes and ${(Number(s.index_bytes) / n).toFixed(0)} index bytes per row (${n.toLocaleString('en')} rows).`;
    }),
  ];
  const text = lines.join('\n');
  process.stdout.write(`${text}\n`);
  if (process.argv.includes('--write-doc') || process.env.BENCH_DOC === '1') {
    const section = EMBEDDED ? 'history-embedded' : 'history-postgres';
    await writeDocSection(join(root, 'docs/benchmarks.md'), section, text);
  }
} finally {
  for (const entry of opened) await close(entry);
  await adminClient?.end();
}
