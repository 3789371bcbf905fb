import { useLocation } from 'preact-iso';
import { useMemo, useState } from 'preact/hooks';
import { withQuery } from '../api.js';
import { ActivityChart } from '../components/activity-chart.js';
import { OutcomeBadge } from '../components/badges.js';
import { PersonName, useDirectory } from '../components/names.js';
import { Pager, useCursorPages } from '../components/pager.js';
import { Ago } from '../components/time.js';
import { FilterSelect } from '../components/filter-select.js';
import { ListTable, LoadedRows, type ListColumn } from '../components/rows.js';
import { ErrorNote, Loading } from '../components/states.js';
import { duration, isoToLocalInput, localInputToIso, shortId } from '../format.js';
import type { Facets, MinuteBucket, Page, ToolCall } from '../types.js';
import { useApi, useInterval } from '../use-api.js';
import { DataSince } from '../components/data-since.js';

/** Relative ranges the chart can draw per minute (the per-minute series spans at most a day). */
const RANGES = [
  { key: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { key: '1h', label: 'Last hour', ms: 3_600_000 },
  { key: '6h', label: 'Last 6 hours', ms: 6 * 3_600_000 },
  { key: '24h', label: 'Last 24 hours', ms: 24 * 3_600_000 },
  { key: 'custom', label: 'Custom…', ms: 0 },
] as const;
const LIVE_EVERY_MS = 5_000;
const PAGE_SIZE = 25;

export type ToolCallRow = ToolCall & { outcome: string };

function timeWindow(q: Record<string, string>, now: number): { since?: string; until?: string } {
  const range = RANGES.find((r) => r.key === (q.range ?? '1h')) ?? RANGES[1];
  if (range.key !== 'custom') return { since: new Date(now - range.ms).toISOString() };
  return { since: q.since || undefined, until: q.until || undefined };
}

export function ActivityPage(props: { facets: Facets | undefined }) {
  const { query, route, path } = useLocation();
  const q = query;
  const [live, setLive] = useState(true);
  const pages = useCursorPages();
  const [now, setNow] = useState(() => Date.now());
  const span = useMemo(() => timeWindow(q, now), [q.range, q.since, q.until, now]);
  const filters = { tool: q.tool, status: q.status, user: q.user, client: q.client, ...span };
  const calls = useApi<Page<ToolCallRow>>('/v1/mcp/tool-calls', {
    ...filters,
    limit: PAGE_SIZE,
    cursor: pages.cursor,
  });
  const series = useApi<{ data: MinuteBucket[] }>('/v1/mcp/tool-calls/per-minute', {
    ...filters,
    until: span.until ?? new Date(now).toISOString(),
  });
  useInterval(() => setNow(Date.now()), LIVE_EVERY_MS, live && pages.page === 0);

  const setFilter = (changes: Record<string, string | undefined>): void => {
    const next: Record<string, string | undefined> = { ...q, ...changes };
    pages.reset();
    route(withQuery(path, next));
  };
  const range = q.range ?? '1h';

  return (
    <section aria-labelledby="activity-title">
      <header class="page-header">
        <h1 id="activity-title">Activity</h1>
        <label class="live">
          <input
            type="checkbox"
            checked={live}
            onChange={(e) => setLive(e.currentTarget.checked)}
          />{' '}
          Live refresh (every {LIVE_EVERY_MS / 1000} s)
        </label>
        <DataSince table="mcp_tool_calls" />
      </header>
      <form class="filters" aria-label="Filter tool calls" onSubmit={(e) => e.preventDefault()}>
        <FacetSelect
          label="Tool"
          name="tool"
          value={q.tool}
          options={(props.facets?.tools ?? []).map((t) => [t, t])}
          onChange={(tool) => setFilter({ tool })}
        />
        <FacetSelect
          label="Status"
          name="status"
          value={q.status}
          options={(props.facets?.statuses ?? []).map((s) => [s, s])}
          onChange={(status) => setFilter({ status })}
        />
        <FacetSelect
          label="Person"
          name="user"
          value={q.user}
          options={(props.facets?.people ?? []).map((p) => [p.user_id, `${p.name} <${p.email}>`])}
          onChange={(user) => setFilter({ user })}
        />
        <FacetSelect
          label="Client"
          name="client"
          value={q.client}
          options={(props.facets?.clients ?? []).map((c) => [c, c])}
          onChange={(client) => setFilter({ client })}
        />
        <label>
          Time range
          <select
            name="range"
            value={range}
            onChange={(e) => setFilter({ range: e.currentTarget.value })}
          >
            {RANGES.map((r) => (
              <option key={r.key} value={r.key}>
                {r.label}
              </option>
            ))}
          </select>
        </label>
        {range === 'custom' ? (
          <>
            <label>
              From
              <input
                type="datetime-local"
                name="since"
                value={isoToLocalInput(q.since)}
                onChange={(e) => setFilter({ since: localInputToIso(e.currentTarget.value) })}
              />
            </label>
            <label>
              To
              <input
                type="datetime-local"
                name="until"
                value={isoToLocalInput(q.until)}
                onChange={(e) => setFilter({ until: localInputToIso(e.currentTarget.value) })}
              />
            </label>
          </>
        ) : null}
        {q.tool || q.status || q.user || q.client ? (
          <button
            type="button"
            onClick={() =>
              setFilter({ tool: undefined, status: undefined, user: undefined, client: undefined })
            }
          >
            Clear filters
          </button>
        ) : null}
      </form>

      <ErrorNote error={series.error} />
      {series.data ? <ActivityChart buckets={series.data.data} /> : <Loading what="the chart" />}

      <h2 class="visually-hidden">Tool calls, newest first</h2>
      <ErrorNote error={calls.error} />
      <LoadedRows
        rows={calls.data?.data}
        error={calls.error}
        what="tool calls"
        empty="No tool calls match these filters in this time range."
      >
        {(rows) => <CallsTable rows={rows} />}
      </LoadedRows>
      <Pager {...pages.pager(calls.data?.next_cursor)} />
    </section>
  );
}

function FacetSelect(props: {
  label: string;
  name: string;
  value: string | undefined;
  options: [string, string][];
  onChange: (value: string | undefined) => void;
}) {
  const options = [...props.options];
  // A value from the URL that the facets do not list (yet) stays selectable.
  if (props.value && !options.some(([v]) => v === props.value))
    options.push([props.value, props.value]);
  return <FilterSelect {...props} options={options} />;
}

const CALL_COLUMNS: ReadonlyArray<ListColumn<ToolCallRow>> = [
  { label: 'When', cell: (c) => <Ago iso={c.created_at} /> },
  {
    label: 'Tool',
    cell: (c) => (
      <>
        <a href={`/admin/calls/${c.id}`}>{c.tool}</a>
        {c.confirmation_id ? <ConfirmationBadge call={c} /> : null}
      </>
    ),
  },
  { label: 'Outcome', cell: (c) => <OutcomeBadge outcome={c.outcome} status={c.status} /> },
  { label: 'Person', cell: (c) => <PersonName id={c.user_id} /> },
  { label: 'Client', cell: (c) => c.client_name ?? <span class="muted">—</span> },
  { label: 'Duration', class: 'num', cell: (c) => duration(c.duration_ms) },
  { label: 'Era', cell: (c) => c.era },
];

function CallsTable(props: { rows: readonly ToolCallRow[] }) {
  const { route } = useLocation();
  useDirectory();
  return (
    <ListTable
      columns={CALL_COLUMNS}
      rows={props.rows}
      rowKey={(c) => c.id}
      rowProps={(c) => ({
        class: 'clickable',
        onClick: (e) => {
          if (!(e.target instanceof Element) || e.target.closest('a') === null)
            route(`/admin/calls/${c.id}`);
        },
      })}
    />
  );
}

function ConfirmationBadge(props: { call: ToolCallRow }) {
  const { call } = props;
  const id = call.confirmation_id ?? '';
  const stage =
    call.status === 'input_required'
      ? { label: 'asked', title: 'Asked the person to confirm' }
      : call.status === 'ok'
        ? { label: 'confirmed', title: 'Ran after the person confirmed it' }
        : call.status === 'USER_DECLINED'
          ? { label: 'declined', title: 'The person declined; nothing ran' }
          : { label: 'confirmation', title: 'Part of a confirmation' };
  return (
    <a
      class={`badge confirmation-${stage.label}`}
      href={`/admin/confirmations/${id}`}
      title={`${stage.title} (confirmation ${shortId(id)})`}
    >
      {stage.label} · #{shortId(id)}
    </a>
  );
}
