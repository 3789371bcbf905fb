import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCallsListQuery, type ToolCallFilter } from '@app/mcp-history';
import { createTestDatabase, type TestDatabase } from '@app/testing';
import { coverHistory, partitionIndexParents } from '../support/history-partitions.js';

/**
 * The call-history list must stay an index range read whatever an organisation's history size:
 * 100k rows for one organisation (and some for another), then EXPLAIN of the exact statement the
 * repository runs, for each filter.
 */
const ROWS = 100_000;
const OTHER_ROWS = 5_000;
const TOOLS = 12;
const USERS = 20;
const TOKENS = 40;
const CLIENTS = 4;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

describe('mcp_tool_calls list query plans (100k rows)', () => {
  let db: TestDatabase;
  let client: Client;
  /** A partition's index → the table's index it is part of. */
  let indexOf: Map<string, string>;
  const org = randomUUID();
  const otherOrg = randomUUID();

  beforeAll(async () => {
    db = await createTestDatabase();
    client = new Client({ connectionString: db.url });
    await client.connect();
    await coverHistory(db.url, '2026-01-01T00:00:00Z', '2026-01-03T00:00:00Z');
    await client.query(
      `INSERT INTO organizations (id, slug, name) VALUES ($1, 'plans', 'Plans'), ($2, 'other', 'Other')`,
      [org, otherOrg],
    );
    const seed = `
      INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, client_name, era, protocol_version, status,
                                  is_error, duration_ms, confirmation_id, request_id, arguments_digest, created_at)
      SELECT gen_random_uuid(), $1::uuid,
             md5('token-' || (i % ${TOKENS}))::uuid, md5('user-' || (i % ${USERS}))::uuid,
             'tool_' || (i % ${TOOLS}), 'client-' || (i % ${CLIENTS}),
             CASE WHEN i % 2 = 0 THEN '2025' ELSE '2026-07-28' END, '2025-06-18',
             CASE WHEN i % 50 = 0 THEN 'VALIDATION_ERROR' WHEN i % 7 = 0 THEN 'input_required' ELSE 'ok' END,
             i % 50 = 0, (i % 300) / 7.0, NULL, 'req-' || i, NULL,
             timestamptz '2026-01-01T00:00:00Z' + i * interval '1 second'
        FROM generate_series(1, $2::int) AS i`;
    await client.query(seed, [org, ROWS]);
    await client.query(seed, [otherOrg, OTHER_ROWS]);
    // A tool only the other organisation ever called.
    await client.query(
      `INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, client_name, era, protocol_version,
                                   status, is_error, duration_ms, request_id, created_at)
       VALUES (gen_random_uuid(), $1, gen_random_uuid(), gen_random_uuid(), 'other_tool', 'other', '2025',
               '2025-06-18', 'ok', false, 1, 'req-other', '2026-01-02T10:00:00Z')`,
      [otherOrg],
    );
    await client.query('ANALYZE mcp_tool_calls');
    indexOf = await partitionIndexParents(db.url);
  }, 180_000);

  afterAll(async () => {
    await client?.end();
    await db?.dispose();
  });

  async function explain(
    filter: Omit<ToolCallFilter, 'organizationId' | 'take'>,
  ): Promise<PlanNode[]> {
    const q = toolCallsListQuery({ organizationId: org, take: 21, ...filter });
    const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (FORMAT JSON) ${q.text}`,
      q.params,
    );
    return nodesOf(rows[0]['QUERY PLAN'][0].Plan).map((n) =>
      n['Index Name'] === undefined
        ? n
        : { ...n, 'Index Name': indexOf.get(n['Index Name']) ?? n['Index Name'] },
    );
  }

  it.each<[string, Omit<ToolCallFilter, 'organizationId' | 'take'>, string]>([
    ['(a) no filter', {}, 'ix_mcp_tool_calls_org_created_filters'],
    ['(b) tool', { tool: 'tool_3' }, 'ix_mcp_tool_calls_org_created_filters'],
    ['(c) status, common', { status: 'ok' }, 'ix_mcp_tool_calls_org_created_filters'],
    ['(c) status, rare', { status: 'VALIDATION_ERROR' }, 'ix_mcp_tool_calls_org_created_filters'],
    ['(d) user', { userId: user(7) }, 'ix_mcp_tool_calls_org_user'],
    ['token', { tokenId: token(11) }, 'ix_mcp_tool_calls_org_token'],
    ['client', { clientName: 'client-2' }, 'ix_mcp_tool_calls_org_created_filters'],
    [
      'tool and status',
      { tool: 'tool_0', status: 'VALIDATION_ERROR' },
      'ix_mcp_tool_calls_org_created_filters',
    ],
    [
      'a later page with a time range',
      {
        since: '2026-01-01T06:00:00Z',
        until: '2026-01-01T12:00:00Z',
        after: ['2026-01-01T09:00:00.000000Z', randomUUID()],
      },
      'ix_mcp_tool_calls_org_created_filters',
    ],
    [
      'tool, later page',
      { tool: 'tool_5', after: ['2026-01-01T09:00:00.000000Z', randomUUID()] },
      'ix_mcp_tool_calls_org_created_filters',
    ],
  ])(
    '%s: an index range read in keyset order (no Seq Scan, no Sort)',
    async (_name, filter, index) => {
      const nodes = await explain(filter);
      // e.g. ["Limit", "Index Scan on mcp_tool_calls using ix_mcp_tool_calls_org_tool"]
      const plan = nodes.map(
        (n) =>
          `${n['Node Type']}${n['Relation Name'] ? ` on ${n['Relation Name']}` : ''}${n['Index Name'] ? ` using ${n['Index Name']}` : ''}`,
      );
      expect(plan).not.toContainEqual(expect.stringMatching(/^Seq Scan on mcp_tool_calls|Sort/));
      expect(plan).toContainEqual(
        expect.stringMatching(
          new RegExp(`^(Index|Index Only|Bitmap Index) Scan.* using ${index}$`),
        ),
      );
    },
  );

  it.each<[string, Omit<ToolCallFilter, 'organizationId' | 'take'>, string]>([
    ['tool', { tool: 'tool_3' }, 'tool'],
    ['status', { status: 'VALIDATION_ERROR' }, 'status'],
    ['client', { clientName: 'client-2' }, 'client_name'],
  ])(
    '%s: checked on the index entries (Index Cond), so rows that do not match are never read',
    async (_name, filter, column) => {
      const scans = (await explain(filter)).filter(
        (n) => n['Index Cond'] !== undefined && n['Relation Name']?.startsWith('mcp_tool_calls_p'),
      );
      expect(scans.length).toBeGreaterThan(0);
      for (const scan of scans) {
        expect(scan['Index Cond']).toContain(`(${column} = `);
        expect(scan.Filter ?? '').not.toContain(column);
      }
    },
  );

  it('the trigger keeps each value the calls have had in a filter, with its last UTC day', async () => {
    const { rows } = await client.query<{ field: string; n: string; last_day: Date }>(
      `SELECT field, count(*)::text AS n, max(last_day) AS last_day FROM mcp_tool_call_filter_values
        WHERE organization_id = $1 GROUP BY field ORDER BY field`,
      [org],
    );
    // The seed's calls run from 2026-01-01 00:00:01 for 100,000 seconds (into 2026-01-02).
    expect(rows.map((r) => [r.field, Number(r.n), r.last_day.toISOString()])).toEqual([
      ['client_name', CLIENTS, '2026-01-02T00:00:00.000Z'],
      ['status', 3, '2026-01-02T00:00:00.000Z'],
      ['tool', TOOLS, '2026-01-02T00:00:00.000Z'],
    ]);
  });

  it.each<[string, Omit<ToolCallFilter, 'organizationId' | 'take'>]>([
    ['tool the organisation never had', { tool: 'tool_99' }],
    ['status the organisation never had', { status: 'RATE_LIMITED' }],
    ['client the organisation never had', { clientName: 'nobody' }],
    [
      'tool only another organisation had (with a status this one has)',
      { tool: 'other_tool', status: 'ok' },
    ],
  ])('a %s: an empty page that reads none of its history', async (_name, filter) => {
    const q = toolCallsListQuery({ organizationId: org, take: 51, ...filter });
    const { rows } = await client.query<{
      'QUERY PLAN': Array<{
        Plan: {
          'Actual Rows': number;
          'Shared Hit Blocks': number;
          'Shared Read Blocks': number;
        };
      }>;
    }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${q.text}`, q.params);
    const plan = rows[0]['QUERY PLAN'][0].Plan;
    expect(plan['Actual Rows']).toBe(0);
    // The value's lookup (a few index pages); walking this organisation's 100,000 index
    // entries for a value none of them has read ~700 buffers before the bound.
    expect(plan['Shared Hit Blocks'] + plan['Shared Read Blocks']).toBeLessThan(12);
    expect((await client.query(q.text, q.params)).rows).toEqual([]);
  });

  it('the bound keeps every call of a value: the last instant of its last day, and older days after a newer one', async () => {
    const rare = `rare_${randomUUID().slice(0, 8)}`;
    const insert = (at: string) =>
      client.query(
        `INSERT INTO mcp_tool_calls (id, organization_id, token_id, user_id, tool, client_name, era, protocol_version,
                                     status, is_error, duration_ms, request_id, created_at)
         VALUES (gen_random_uuid(), $1, gen_random_uuid(), gen_random_uuid(), $2, 'client-0', '2025', '2025-06-18',
                 'ok', false, 1, $3, $4)`,
        [org, rare, `req-${at}`, at],
      );
    await insert('2026-01-02T23:59:59.999999Z');
    await insert('2026-01-01T00:00:00Z'); // an older day afterwards leaves the last day where it was
    const { rows } = await client.query<{ request_id: string }>(
      toolCallsListQuery({ organizationId: org, take: 51, tool: rare }).text,
      toolCallsListQuery({ organizationId: org, take: 51, tool: rare }).params,
    );
    expect(rows.map((r) => r.request_id)).toEqual([
      'req-2026-01-02T23:59:59.999999Z',
      'req-2026-01-01T00:00:00Z',
    ]);
    const { rows: seen } = await client.query<{ last_day: Date }>(
      `SELECT last_day FROM mcp_tool_call_filter_values WHERE organization_id = $1 AND field = 'tool' AND value = $2`,
      [org, rare],
    );
    expect(seen.map((r) => r.last_day.toISOString())).toEqual(['2026-01-02T00:00:00.000Z']);
    await client.query(`DELETE FROM mcp_tool_calls WHERE tool = $1`, [rare]);
  });

  it('the explained statement answers: this organisation only, newest first, and the next page after the cursor', async () => {
    const newest = ROWS - (ROWS % TOOLS); // the last i with i % TOOLS = 0
    const first = toolCallsListQuery({ organizationId: org, take: 3, tool: 'tool_0' });
    const { rows } = await client.query<{ id: string; request_id: string; cursor_ts: string }>(
      first.text,
      first.params,
    );
    expect(rows.map((r) => r.request_id)).toEqual([
      `req-${newest}`,
      `req-${newest - TOOLS}`,
      `req-${newest - 2 * TOOLS}`,
    ]);
    const last = rows[2];
    const next = toolCallsListQuery({
      organizationId: org,
      take: 1,
      tool: 'tool_0',
      after: [last.cursor_ts, last.id],
    });
    const page2 = await client.query<{ request_id: string }>(next.text, next.params);
    expect(page2.rows.map((r) => r.request_id)).toEqual([`req-${newest - 3 * TOOLS}`]);
    const all = await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM mcp_tool_calls`);
    expect(Number(all.rows[0].n)).toBe(ROWS + OTHER_ROWS + 1);
  });
});

const user = (n: number): string => uuidOfMd5(`user-${n}`);
const token = (n: number): string => uuidOfMd5(`token-${n}`);

/** `md5(text)::uuid` as Postgres computes it. */
function uuidOfMd5(text: string): string {
  const hex = createHashHex(text);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function createHashHex(text: string): string {
  return createHash('md5').update(text).digest('hex');
}
