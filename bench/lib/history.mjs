// What the history benchmarks (bench/history.mjs, bench/history-indexes.mjs) share: the build's
// list and series statements, the tool-call load generated in SQL, how a statement is timed, and
// the comparison of the history writer's insert between databases.
import { createHash, randomUUID } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** A module of the built libraries (`npm run build` first). */
export const dist = (p) => join(root, 'dist/libs', p);
const { TOOL_CALLS_INSERT, toolCallsListQuery, toolCallSeriesQuery } = await import(
  dist('mcp-history/src/index.js')
);
const { auditEventsListQuery } = await import(dist('audit-trail/src/index.js'));
const { confirmationsListQuery } = await import(dist('mcp-confirmations/src/index.js'));
/** The list and series statements the repositories run and the history writer's insert, from the build. */
export const statements = {
  TOOL_CALLS_INSERT,
  toolCallsListQuery,
  toolCallSeriesQuery,
  auditEventsListQuery,
  confirmationsListQuery,
};

/** The loaded history spreads over this many organisations and days back from now. */
export const ORGS = 100;
export const DAYS = 60;

/**
 * Loads `calls` tool calls into `mcp_tool_calls`, `chunk` rows a statement, over the ORGS
 * organisations of the table `bench_orgs` (n, id) and the DAYS days before `now`: 12 tools,
 * 4 clients, 2,000 people, 4,000 tokens; 1 in 50 a VALIDATION_ERROR, 1 in 7 an input_required.
 * `progress(loaded, seconds)` after each statement (`seconds`: that statement's).
 */
/**
 * The head of an INSERT of generated calls (the `i`-th of a `generate_series` joined to
 * `bench_orgs o`): every column but `created_at`, whose expression the caller appends.
 */
const INSERT_GENERATED_CALLS = `INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, client_name, era, protocol_version,
                            status, is_error, duration_ms, confirmation_id, request_id, arguments_digest, created_at)
  SELECT gen_random_uuid(), o.id, md5('token-' || (i % 4000))::uuid, md5('user-' || (i % 2000))::uuid,
         'tool_' || (i % 12), 'client-' || (i % 4), '2026-07-28', '2026-07-28',
         CASE WHEN i % 50 = 0 THEN 'VALIDATION_ERROR' WHEN i % 7 = 0 THEN 'input_required' ELSE 'ok' END,
         i % 50 = 0, (i % 300) / 7.0, NULL, 'req-' || i, NULL,`;

export async function loadToolCalls(run, { calls, chunk, now, progress }) {
  for (let done = 0; done < calls; done += chunk) {
    const n = Math.min(chunk, calls - done);
    const t0 = Date.now();
    await run(
      `${INSERT_GENERATED_CALLS}
              $2::timestamptz - ((i::float8 / $3) * interval '${DAYS} days')
         FROM generate_series($1::bigint, $1::bigint + $4 - 1) i
         JOIN bench_orgs o ON o.n = i % ${ORGS}`,
      [done, now.toISOString(), calls, n],
    );
    progress(done + n, (Date.now() - t0) / 1000);
  }
}

/**
 * Fills today's (UTC) partition of `mcp_tool_calls` up to `rows` rows (counting those already
 * there), generated like {@link loadToolCalls}'s and spread over midnight to `now`.
 * Answers how many it added.
 */
export async function fillToday(run, { rows, now }) {
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const [{ n }] = await run(
    `SELECT count(*)::bigint AS n FROM mcp_tool_calls WHERE created_at >= $1 AND created_at < $1::timestamptz + interval '1 day'`,
    [midnight.toISOString()],
  );
  const add = rows - Number(n);
  if (add <= 0) return 0;
  await run(
    `${INSERT_GENERATED_CALLS}
            $1::timestamptz + (i::float8 / $2) * ($3::timestamptz - $1::timestamptz)
       FROM generate_series(0, $2 - 1) i
       JOIN bench_orgs o ON o.n = i % ${ORGS}`,
    [midnight.toISOString(), add, now.toISOString()],
  );
  return add;
}

/**
 * The history writer's own statement (TOOL_CALLS_INSERT, 100 rows a batch) timed into several
 * databases side by side: `cases` [{ key, run, orgs, fill }], each a database of the schema with
 * the `bench_orgs` table; those with `fill` get today's partition filled to `dayFill` rows first.
 * Each gets the same rows (the load's people, tokens, tools and clients, a random id each), after
 * VACUUM (ANALYZE) of today's partition and one CHECKPOINT (so each pays the full-page writes of a
 * page's first change after a checkpoint alike), one batch under EXPLAIN (ANALYZE, BUFFERS, WAL),
 * then 100 timed batches in 20 rounds of 5 per database, the order turning each round (10
 * untimed batches each before all that: see below).
 * Answers, by key: µs per row, the rows and index MB of today's partition before, the first
 * batch's plan line, and each round's nanoseconds.
 */
export async function compareInserts(insertCases, { now, dayFill }) {
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const todayPartition = `mcp_tool_calls_p${midnight.toISOString().slice(0, 10).replaceAll('-', '')}`;
  const md5Uuid = (text) =>
    createHash('md5')
      .update(text)
      .digest('hex')
      .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
  const people = Array.from({ length: 2000 }, (_, i) => md5Uuid(`user-${i}`));
  const tokens = Array.from({ length: 4000 }, (_, i) => md5Uuid(`token-${i}`));
  let rowNo = 0;
  const batch = (dbOrgs) =>
    Array.from({ length: 100 }, () => {
      const i = rowNo++;
      return [
        randomUUID(),
        dbOrgs[i % ORGS],
        tokens[i % 4000],
        people[i % 2000],
        `tool_${i % 12}`,
        `client-${i % 4}`,
        '2026-07-28',
        '2026-07-28',
        'ok',
        false,
        3.5,
        null,
        `req-${i}`,
        null,
        new Date().toISOString(),
        null,
        null,
        null,
      ];
    });
  const columns = (rows) => rows[0].map((_, c) => rows.map((r) => r[c]));
  for (const c of insertCases) if (c.fill) await fillToday(c.run, { rows: dayFill, now });
  // Untimed, 10 batches each: today's partition of a running service is the one being written,
  // its hot pages cached; here the databases share one buffer pool and the fill of one evicts the
  // pages of the one filled before it (its first timed batch read 465 pages, the other's 87).
  for (const c of insertCases)
    for (let b = 0; b < 10; b++) await c.run(TOOL_CALLS_INSERT, columns(batch(c.orgs)));
  for (const c of insertCases) {
    const [{ n }] = await c.run(`SELECT count(*)::int AS n FROM ${todayPartition}`);
    const [{ b }] = await c.run(
      `SELECT coalesce(sum(pg_relation_size(indexrelid)), 0)::bigint AS b FROM pg_index WHERE indrelid = '${todayPartition}'::regclass`,
    );
    c.todayRows = n;
    c.todayIndexMb = Number(b) / 1e6;
    await c.run(`VACUUM (ANALYZE) ${todayPartition}`);
  }
  for (const c of insertCases) await c.run('CHECKPOINT');
  for (const c of insertCases) {
    const [
      {
        'QUERY PLAN': [{ Plan: plan, 'Execution Time': execution }],
      },
    ] = await c.run(
      `EXPLAIN (ANALYZE, BUFFERS, WAL, FORMAT JSON) ${TOOL_CALLS_INSERT}`,
      columns(batch(c.orgs)),
    );
    c.plan = `${execution.toFixed(1)} ms, ${plan['Shared Hit Blocks'] + plan['Shared Read Blocks']} buffers (${plan['Shared Read Blocks']} read, ${plan['Shared Dirtied Blocks']} dirtied), ${plan['WAL Records']} WAL records, ${plan['WAL FPI']} full pages, ${(plan['WAL Bytes'] / 1024).toFixed(0)} kB`;
    c.ns = 0n;
    c.rounds = [];
  }
  for (let round = 0; round < 20; round++) {
    const order = insertCases.map((_, k) => insertCases[(k + round) % insertCases.length]);
    for (const c of order) {
      const t0 = process.hrtime.bigint();
      for (let b = 0; b < 5; b++) await c.run(TOOL_CALLS_INSERT, columns(batch(c.orgs)));
      const ns = process.hrtime.bigint() - t0;
      c.ns += ns;
      c.rounds.push(Number(ns));
    }
  }
  return Object.fromEntries(
    insertCases.map((c) => [c.key, { ...c, us: Number(c.ns) / 1000 / 10_000 }]),
  );
}

/** The `p`th percentile of `xs` (the sample at ⌊p% of the count⌋). */
export function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** Runs statement `q` ({text, params}) through `run`; its rows and the milliseconds it took. */
export async function timed(run, q) {
  const t0 = process.hrtime.bigint();
  const rows = await run(q.text, q.params);
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, rows };
}
