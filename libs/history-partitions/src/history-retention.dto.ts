import { PARTITIONED_TABLES } from '@app/database';
import { Out } from '@app/rest-contract';

export class HistoryTableRetentionDto {
  @Out.enum(PARTITIONED_TABLES.map((t) => t.table), {
    description:
      '`mcp_tool_calls` (GET /v1/mcp/tool-calls), `audit_events` (GET /v1/audit-events) or `mcp_confirmations` (GET /v1/mcp/confirmations).',
  })
  table: string;
  @Out.integer({
    nullable: true,
    description:
      'Days kept (older data is dropped a whole day or month at a time); null: kept whole.',
  })
  retention_days: number | null;
  @Out.dateTime({
    nullable: true,
    description:
      'How far back the data goes: nothing older exists. Null: the table holds nothing yet.',
  })
  data_since: string | null;
}

export class HistoryRetentionDto {
  @Out.nested(() => HistoryTableRetentionDto, { isArray: true }) data: HistoryTableRetentionDto[];
}
