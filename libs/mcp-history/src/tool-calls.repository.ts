import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { EraLabel } from '@app/mcp-transport';
import {
  equals,
  newestFirstQuery,
  type Condition,
  type NewestFirstWindow,
  type SqlQuery,
} from '@app/rest-contract';
import type { ToolCallFields } from './tool-call-fields.js';
import { outcomeSql } from './tool-call-outcome.js';

/** A stored `mcp_tool_calls` row as the admin queries read it. */
export interface StoredToolCall extends ToolCallFields<Date> {
  era: EraLabel;
}

export interface ToolCallListRow extends StoredToolCall {
  cursor_ts: string;
}

/** The equality filters the list and the per-minute series share (each optional but the organisation). */
interface ToolCallEqualities {
  organizationId: string;
  tool?: string;
  status?: string;
  userId?: string;
  tokenId?: string;
  clientName?: string;
}

export interface ToolCallFilter extends ToolCallEqualities, NewestFirstWindow {
  approvalId?: string;
}

const COLUMNS = `id, tool, status, is_error, era, protocol_version, client_name, user_id, token_id, duration_ms,
  confirmation_id, request_id, trace_id, correlation_id, approval_id, arguments_digest, created_at`;

/**
 * The exact list statement {@link ToolCallsRepository.list} runs: newest first, each filter an
 * equality. A person or a token has its own `(organization_id, <column>, created_at DESC, id DESC)`
 * index; tool, status and client are trailing key columns of `(organization_id, created_at DESC,
 * id DESC, tool, status, client_name)`, checked on the index entries (migration
 * `HistoryIndexes1765600000000`), and bounded by the last day their value was seen
 * ({@link seenUntil}), so a value the organisation never had reads nothing. An approval request's
 * calls are few and recent: that filter is checked on the rows the organisation's time index
 * returns (no index of its own; bound it with `since`, as the console's link from an approval
 * does). Exported so the query-plan test EXPLAINs the real statement.
 */
export function toolCallsListQuery(f: ToolCallFilter): SqlQuery {
  return newestFirstQuery({
    from: 'mcp_tool_calls',
    columns: COLUMNS,
    organizationId: f.organizationId,
    conditions: [
      equals('tool', f.tool),
      equals('status', f.status),
      equals('user_id', f.userId, '::uuid'),
      equals('token_id', f.tokenId, '::uuid'),
      equals('client_name', f.clientName),
      equals('approval_id', f.approvalId, '::uuid'),
      seenUntil(f.organizationId, 'tool', f.tool),
      seenUntil(f.organizationId, 'status', f.status),
      seenUntil(f.organizationId, 'client_name', f.clientName),
    ],
    window: f,
  });
}

/**
 * No call of the organisation is later than the last day `value` was seen in `field`
 * (`mcp_tool_call_filter_values`, kept by a trigger on every insert; migration
 * `ToolCallFilterValues1766100000000`), and none at all has a value never seen: the bound spares a
 * rare or absent value's page the walk of the organisation's whole history. A scalar subquery
 * (one lookup by primary key, before the scans: an InitPlan), NULL when the value was never seen,
 * and `created_at < NULL` holds for no row.
 */
function seenUntil(
  organizationId: string,
  field: 'tool' | 'status' | 'client_name',
  value: string | undefined,
): Condition | undefined {
  if (value === undefined) return undefined;
  return (bind) =>
    `created_at < (SELECT last_day + interval '1 day' FROM mcp_tool_call_filter_values
                    WHERE organization_id = ${bind(organizationId)}::uuid AND field = '${field}' AND value = ${bind(value)})`;
}

/** The filters of a per-minute series: the list's, over a bounded window. */
export interface ToolCallSeriesFilter extends ToolCallEqualities {
  /** Inclusive (ISO 8601). */
  since: string;
  /** Exclusive (ISO 8601). */
  until: string;
}

export interface MinuteRow {
  minute: Date;
  ok: number;
  tool_error: number;
  refused: number;
  protocol_error: number;
  p95_ms: number | null;
}

export interface ToolCallFacetRow {
  tools: string[];
  statuses: string[];
  clients: string[];
  user_ids: string[];
  token_ids: string[];
}

/** At most this many distinct values per facet (client names are client-supplied). */
const FACET_LIMIT = 200;

/** The distinct values of `column` among the organisation's calls since `$2`, as an array. */
function distinct(column: string): string {
  return `ARRAY(SELECT DISTINCT ${column} AS v FROM mcp_tool_calls
                 WHERE organization_id = $1 AND created_at >= $2::timestamptz AND ${column} IS NOT NULL
                 ORDER BY v LIMIT ${FACET_LIMIT})`;
}

function filterConditions(f: Omit<ToolCallSeriesFilter, 'since' | 'until'>): Condition[] {
  return [
    equals('tool', f.tool),
    equals('status', f.status),
    equals('user_id', f.userId, '::uuid'),
    equals('token_id', f.tokenId, '::uuid'),
    equals('client_name', f.clientName),
  ].filter((c) => c !== undefined);
}

/**
 * Calls per minute by outcome class and the 95th percentile duration, one row for every minute
 * of the window (empty ones included, so a chart's gaps are real). Exported for the plan test.
 */
export function toolCallSeriesQuery(f: ToolCallSeriesFilter): SqlQuery {
  const params: unknown[] = [];
  const bind = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const org = bind(f.organizationId);
  const since = bind(f.since);
  const until = bind(f.until);
  const where = filterConditions(f)
    .map((c) => ` AND ${c(bind)}`)
    .join('');
  const outcome = outcomeSql(bind);
  const text = `WITH calls AS (
      SELECT date_trunc('minute', created_at) AS minute, ${outcome} AS outcome, duration_ms
        FROM mcp_tool_calls
       WHERE organization_id = ${org}::uuid
         AND created_at >= ${since}::timestamptz AND created_at < ${until}::timestamptz${where}
    ), minutes AS (
      SELECT generate_series(date_trunc('minute', ${since}::timestamptz),
                             ${until}::timestamptz - interval '1 microsecond',
                             interval '1 minute') AS minute
    )
    SELECT m.minute,
           count(c.outcome) FILTER (WHERE c.outcome = 'ok')::int AS ok,
           count(c.outcome) FILTER (WHERE c.outcome = 'tool_error')::int AS tool_error,
           count(c.outcome) FILTER (WHERE c.outcome = 'refused')::int AS refused,
           count(c.outcome) FILTER (WHERE c.outcome = 'protocol_error')::int AS protocol_error,
           percentile_cont(0.95) WITHIN GROUP (ORDER BY c.duration_ms) AS p95_ms
      FROM minutes m LEFT JOIN calls c ON c.minute = m.minute
     GROUP BY m.minute
     ORDER BY m.minute`;
  return { text, params };
}

/** Admin reads of the MCP call history (`mcp_tool_calls`); {@link ToolCallHistory} writes it. */
@Injectable()
export class ToolCallsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  list(f: ToolCallFilter): Promise<ToolCallListRow[]> {
    const q = toolCallsListQuery(f);
    return this.ds.query<ToolCallListRow[]>(q.text, q.params);
  }

  async findById(organizationId: string, id: string): Promise<StoredToolCall | undefined> {
    const rows = await this.ds.query<StoredToolCall[]>(
      `SELECT ${COLUMNS} FROM mcp_tool_calls WHERE organization_id = $1 AND id = $2`,
      [organizationId, id],
    );
    return rows[0];
  }

  perMinute(f: ToolCallSeriesFilter): Promise<MinuteRow[]> {
    const q = toolCallSeriesQuery(f);
    return this.ds.query<MinuteRow[]>(q.text, q.params);
  }

  /** The distinct tools, statuses, clients, people and tokens of calls since `since`. */
  async facets(organizationId: string, since: string): Promise<ToolCallFacetRow> {
    const rows = await this.ds.query<ToolCallFacetRow[]>(
      `SELECT ${distinct('tool')} AS tools, ${distinct('status')} AS statuses,
              ${distinct('client_name')} AS clients, ${distinct('user_id::text')} AS user_ids,
              ${distinct('token_id::text')} AS token_ids`,
      [organizationId, since],
    );
    return rows[0] ?? { tools: [], statuses: [], clients: [], user_ids: [], token_ids: [] };
  }
}
