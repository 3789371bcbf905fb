import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { equals, newestFirstQuery, type SqlQuery } from './newest-first-query.util.js';

/** A stored `mcp_tool_calls` row as the admin queries read it. */
export interface StoredToolCall {
  id: string;
  tool: string;
  status: string;
  is_error: boolean;
  era: '2025' | '2026-07-28';
  protocol_version: string;
  client_name: string | null;
  user_id: string;
  token_id: string;
  duration_ms: number;
  confirmation_id: string | null;
  request_id: string;
  arguments_digest: string | null;
  created_at: Date;
}

export interface ToolCallListRow extends StoredToolCall {
  cursor_ts: string;
}

export interface ToolCallFilter {
  organizationId: string;
  tool?: string;
  status?: string;
  userId?: string;
  tokenId?: string;
  clientName?: string;
  /** Inclusive lower bound (ISO 8601). */
  since?: string;
  /** Exclusive upper bound (ISO 8601). */
  until?: string;
  /** Keyset position `[created_at text, id]` of the last row already seen. */
  after?: readonly string[];
  take: number;
}

const COLUMNS = `id, tool, status, is_error, era, protocol_version, client_name, user_id, token_id, duration_ms,
  confirmation_id, request_id, arguments_digest, created_at`;

/**
 * The exact list statement {@link ToolCallsRepository.list} runs: newest first, each filter an
 * equality on a column that has its own `(organization_id, <column>, created_at DESC, id DESC)`
 * index. Exported so the query-plan test EXPLAINs the real statement.
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
    ],
    since: f.since,
    until: f.until,
    after: f.after,
    take: f.take,
  });
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
}
