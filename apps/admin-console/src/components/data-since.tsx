import { fullTime } from '../format.js';
import { useApi } from '../use-api.js';

interface TableRetention {
  table: 'mcp_tool_calls' | 'audit_events' | 'mcp_confirmations';
  retention_days: number | null;
  data_since: string | null;
}

/**
 * How far back a page's data goes (`GET /v1/history/retention`): older records were dropped by
 * retention, so a filter reaching further finds nothing there, and the person should know why.
 */
export function DataSince(props: { table: TableRetention['table'] }) {
  const retention = useApi<{ data: TableRetention[] }>('/v1/history/retention');
  const t = retention.data?.data.find((r) => r.table === props.table);
  if (t === undefined) return null;
  const kept = t.retention_days === null ? 'Kept without limit' : `Kept ${t.retention_days} days`;
  return (
    <p class="muted data-since">
      {kept}
      {t.data_since === null ? '' : `; data since ${fullTime(t.data_since)}`}
    </p>
  );
}
