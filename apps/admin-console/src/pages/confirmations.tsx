import { useLocation } from 'preact-iso';

import { withQuery } from '../api.js';
import { OutcomeBadge, StatusBadge } from '../components/badges.js';
import { PersonName } from '../components/names.js';
import { Pager, useCursorPages } from '../components/pager.js';
import { Ago } from '../components/time.js';
import { ListTable, LoadedRows, type ListColumn } from '../components/rows.js';
import { ErrorNote, Loading } from '../components/states.js';
import { ago, fullTime } from '../format.js';
import type { Confirmation, ConfirmationDetail, Page } from '../types.js';
import { useApi, useInterval } from '../use-api.js';
import { AuditEventCards } from './audit-events-list.js';
import { DataSince } from '../components/data-since.js';

const STATUSES = ['pending', 'consumed', 'declined', 'expired'] as const;

/** Confirmations asked of people, newest first, by status. */
export function ConfirmationsPage() {
  const { query, route, path } = useLocation();
  const status = query.status;
  const pages = useCursorPages();
  const list = useApi<Page<Confirmation>>('/v1/mcp/confirmations', {
    status,
    limit: 25,
    cursor: pages.cursor,
  });
  useInterval(list.reload, 10_000, pages.page === 0);
  return (
    <section aria-labelledby="confirmations-title">
      <header class="page-header">
        <h1 id="confirmations-title">Confirmations</h1>
        <DataSince table="mcp_confirmations" />
      </header>
      <div class="tabs" role="group" aria-label="Status">
        {[undefined, ...STATUSES].map((s) => (
          <button
            type="button"
            key={s ?? 'all'}
            aria-pressed={status === s}
            onClick={() => {
              pages.reset();
              route(withQuery(path, { status: s }));
            }}
          >
            {s ?? 'all'}
          </button>
        ))}
      </div>
      <ErrorNote error={list.error} />
      <LoadedRows
        rows={list.data?.data}
        error={list.error}
        what="confirmations"
        empty={<>No confirmations{status ? ` ${status}` : ''}.</>}
      >
        {(rows) => <ListTable columns={CONFIRMATION_COLUMNS} rows={rows} rowKey={(c) => c.id} />}
      </LoadedRows>
      <Pager {...pages.pager(list.data?.next_cursor)} />
    </section>
  );
}

/** One confirmation: the question, who answered and when, the call it authorized, what it wrote. */
export function ConfirmationPage(props: { id: string }) {
  const detail = useApi<ConfirmationDetail & { tool_call: { outcome: string } | null }>(
    `/v1/mcp/confirmations/${props.id}`,
  );
  const c = detail.data;
  return (
    <section aria-labelledby="confirmation-title">
      <p>
        <a href="/admin/confirmations">← Confirmations</a>
      </p>
      <h1 id="confirmation-title">Confirmation</h1>
      <ErrorNote error={detail.error} />
      {c === undefined ? (
        detail.error ? null : (
          <Loading what="the confirmation" />
        )
      ) : (
        <>
          <blockquote class="question">{c.message}</blockquote>
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <StatusBadge status={c.status} />
            </dd>
            <dt>Tool</dt>
            <dd>
              <code>{c.tool}</code> on {c.target_type.replace('_', ' ')}{' '}
              <code title={c.target_id}>{c.target_id.slice(0, 8)}</code>
            </dd>
            <dt>Asked of</dt>
            <dd>
              <PersonName id={c.user_id} />
            </dd>
            <dt>Asked</dt>
            <dd>{fullTime(c.created_at)}</dd>
            <dt>Answered</dt>
            <dd>
              {c.mode === 'verified' ? (
                c.verified_at ? (
                  `confirmed on this server’s page, signed in, ${fullTime(c.verified_at)}`
                ) : c.decided_at ? (
                  `declined ${fullTime(c.decided_at)}`
                ) : (
                  <span class="muted">not answered on the page</span>
                )
              ) : c.decided_at ? (
                `in the client’s form, ${fullTime(c.decided_at)}`
              ) : (
                <span class="muted">not answered</span>
              )}
            </dd>
            <dt>Expires</dt>
            <dd>{fullTime(c.expires_at)}</dd>
            <dt>Client</dt>
            <dd>
              {c.client_name ?? <span class="muted">not reported</span>}{' '}
              <span class="muted">(protocol {c.protocol_version})</span>
            </dd>
          </dl>
          <h2>What ran</h2>
          {c.tool_call ? (
            <p>
              <a href={`/admin/calls/${c.tool_call.id}`}>
                <code>{c.tool_call.tool}</code> call
              </a>{' '}
              <OutcomeBadge outcome={c.tool_call.outcome} status={c.tool_call.status} />
            </p>
          ) : (
            <p class="empty">No call ran with this confirmation.</p>
          )}
          <h2>Audit events</h2>
          <AuditEventCards events={c.audit_events} empty="Nothing was written." />
        </>
      )}
    </section>
  );
}

const CONFIRMATION_COLUMNS: ReadonlyArray<ListColumn<Confirmation>> = [
  { label: 'Asked', cell: (c) => <Ago iso={c.created_at} /> },
  { label: 'Status', cell: (c) => <StatusBadge status={c.status} /> },
  {
    label: 'Question shown to the person',
    cardLabel: 'Question',
    cell: (c) => (
      <>
        <a href={`/admin/confirmations/${c.id}`}>{c.message}</a>
        <div class="muted small">
          {c.tool} · {c.client_name ?? 'unnamed client'}
        </div>
      </>
    ),
  },
  { label: 'Person', cell: (c) => <PersonName id={c.user_id} /> },
  {
    label: 'Answered',
    cell: (c) => (c.decided_at ? ago(c.decided_at) : <span class="muted">—</span>),
  },
];
