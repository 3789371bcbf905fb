// What the history benchmarks (bench/history.mjs, bench/history-indexes.mjs) share: the build's
// list and series statements, the tool-call load generated in SQL, and how a statement is timed.
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
export async function loadToolCalls(run, { calls, chunk, now, progress }) {
  for (let done = 0; done < calls; done += chunk) {
    const n = Math.min(chunk, calls - done);
    const t0 = Date.now();
    await run(
      `INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, client_name, era, protocol_version,
                                   status, is_error, duration_ms, confirmation_id, request_id, arguments_digest, created_at)
       SELECT gen_random_uuid(), o.id, md5('token-' || (i % 4000))::uuid, md5('user-' || (i % 2000))::uuid,
              'tool_' || (i % 12), 'client-' || (i % 4), '2026-07-28', '2026-07-28',
              CASE WHEN i % 50 = 0 THEN 'VALIDATION_ERROR' WHEN i % 7 = 0 THEN 'input_required' ELSE 'ok' END,
              i % 50 = 0, (i % 300) / 7.0, NULL, 'req-' || i, NULL,
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
    `INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, client_name, era, protocol_version,
                                 status, is_error, duration_ms, confirmation_id, request_id, arguments_digest, created_at)
     SELECT gen_random_uuid(), o.id, md5('token-' || (i % 4000))::uuid, md5('user-' || (i % 2000))::uuid,
            'tool_' || (i % 12), 'client-' || (i % 4), '2026-07-28', '2026-07-28',
            CASE WHEN i % 50 = 0 THEN 'VALIDATION_ERROR' WHEN i % 7 = 0 THEN 'input_required' ELSE 'ok' END,
            i % 50 = 0, (i % 300) / 7.0, NULL, 'req-' || i, NULL,
            $1::timestamptz + (i::float8 / $2) * ($3::timestamptz - $1::timestamptz)
       FROM generate_series(0, $2 - 1) i
       JOIN bench_orgs o ON o.n = i % ${ORGS}`,
    [midnight.toISOString(), add, now.toISOString()],
  );
  return add;
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
