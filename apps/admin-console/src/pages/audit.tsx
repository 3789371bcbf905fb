import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { withQuery } from '../api.js';
import { AUDIT_RESOURCE_TYPES, CHANNEL_LABELS } from '../audit-vocabulary.js';
import { ChannelBadge } from '../components/badges.js';
import { ChangesTable } from '../components/changes.js';
import { PersonName, TokenName } from '../components/names.js';
import { Pager, useCursorPages } from '../components/pager.js';
import { Ago } from '../components/time.js';
import { FilterSelect } from '../components/filter-select.js';
import { ListTable, LoadedRows, type ListColumn } from '../components/rows.js';
import { ErrorNote } from '../components/states.js';

import type { AuditEvent, Page } from '../types.js';
import { useApi } from '../use-api.js';
import { ResourceLabel } from './audit-events-list.js';
import { DataSince } from '../components/data-since.js';

/** Every write, human (api) and agent (mcp) side by side, searchable by the labels it carries. */
export function AuditPage() {
  const { query, route, path } = useLocation();
  const q = query;
  const pages = useCursorPages();
  const [search, setSearch] = useState(q.q ?? '');
  const list = useApi<Page<AuditEvent>>('/v1/audit-events', {
    q: q.q,
    resource_type: q.resource_type,
    resource_id: q.resource_id,
    channel: q.channel,
    limit: 25,
    cursor: pages.cursor,
  });
  const setFilter = (changes: Record<string, string | undefined>): void => {
    pages.reset();
    route(withQuery(path, { ...q, ...changes }));
  };
  return (
    <section aria-labelledby="audit-title">
      <header class="page-header">
        <h1 id="audit-title">Audit trail</h1>
        <DataSince table="audit_events" />
      </header>
      <form
        class="filters"
        role="search"
        aria-label="Filter audit events"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter({ q: search.trim() || undefined });
        }}
      >
        <label>
          Search names and e-mails
          <input
            type="search"
            name="q"
            value={search}
            placeholder="e.g. ana@example.com"
            onInput={(e) => setSearch(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Search</button>
        <FilterSelect
          label="Resource"
          name="resource_type"
          value={q.resource_type}
          options={AUDIT_RESOURCE_TYPES.map((r) => [r, r.replace('_', ' ')])}
          onChange={(resource_type) => setFilter({ resource_type })}
        />
        <FilterSelect
          label="Channel"
          name="channel"
          value={q.channel}
          options={Object.entries(CHANNEL_LABELS)}
          onChange={(channel) => setFilter({ channel })}
        />
        {q.resource_id ? (
          <button type="button" onClick={() => setFilter({ resource_id: undefined })}>
            Showing one resource · show all
          </button>
        ) : null}
      </form>
      <ErrorNote error={list.error} />
      <LoadedRows
        rows={list.data?.data}
        error={list.error}
        what="audit events"
        empty="No audit events match."
      >
        {(rows) => (
          <ListTable class="audit" columns={auditColumns(path)} rows={rows} rowKey={(e) => e.id} />
        )}
      </LoadedRows>
      <Pager {...pages.pager(list.data?.next_cursor)} />
    </section>
  );
}

/** The audit list's columns; `path` is the page's, for the link to one resource's history. */
function auditColumns(path: string): ReadonlyArray<ListColumn<AuditEvent>> {
  return [
    { label: 'When', cell: (e) => <Ago iso={e.occurred_at} /> },
    { label: 'Channel', cell: (e) => <ChannelBadge channel={e.channel} /> },
    { label: 'Action', cell: (e) => <code>{e.action}</code> },
    {
      label: 'Resource',
      cell: (e) => (
        <a
          href={withQuery(path, { resource_type: e.resource_type, resource_id: e.resource_id })}
          title="Only this resource's history"
        >
          <ResourceLabel event={e} />
        </a>
      ),
    },
    {
      label: 'Who',
      cell: (e) => <PersonName id={e.actor_user_id} name={e.actor_name} email={e.actor_email} />,
    },
    {
      label: 'Token / client',
      cell: (e) => (
        <>
          <TokenName id={e.token_id} name={e.token_name} kind={e.token_kind} />
          {e.client_name ? <div class="muted small">{e.client_name}</div> : null}
        </>
      ),
    },
    {
      label: 'Changes',
      cell: (e) => (
        <details>
          <summary>
            {Object.keys(e.changes).length} field
            {Object.keys(e.changes).length === 1 ? '' : 's'}
          </summary>
          <ChangesTable changes={e.changes} />
        </details>
      ),
    },
  ];
}
