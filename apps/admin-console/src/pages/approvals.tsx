import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { StatusBadge } from '../components/badges.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Pager, useCursorPages } from '../components/pager.js';
import { ListTable, LoadedRows, type ListColumn } from '../components/rows.js';
import { ErrorNote } from '../components/states.js';
import { Ago } from '../components/time.js';
import type { ApprovalRequest, Page, ToolCall } from '../types.js';
import { useApi, useInterval } from '../use-api.js';

/** Said when a decision changes how many requests wait (the navigation's count listens). */
export const APPROVALS_CHANGED = 'console:approvals-changed';

type Decision = { request: ApprovalRequest; verb: 'approve' | 'deny' };

/**
 * Requests for a second admin's approval of an agent's tool call: the pending ones with the
 * question, the arguments, the requester, the client and the expiry, each approved or denied with
 * a reason (never one's own); the decided ones below. Live: the pending list refreshes itself.
 */
export function ApprovalsPage(props: { me: string }) {
  const pending = useApi<Page<ApprovalRequest>>('/v1/mcp/approvals', {
    status: 'pending',
    limit: 100,
  });
  const pages = useCursorPages();
  const history = useApi<Page<ApprovalRequest>>('/v1/mcp/approvals', {
    limit: 25,
    cursor: pages.cursor,
  });
  useInterval(pending.reload, 15_000, true);
  const [decision, setDecision] = useState<Decision | null>(null);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const [done, setDone] = useState<ApprovalRequest | null>(null);
  // After a decision the dialog and the row are gone: focus goes to the notice saying what happened.
  const notice = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (done !== null) notice.current?.focus();
  }, [done]);

  const open = (request: ApprovalRequest, verb: Decision['verb']): void => {
    setFailure(undefined);
    setReason('');
    setDecision({ request, verb });
  };

  const decide = async (): Promise<void> => {
    if (decision === null) return;
    const text = reason.trim();
    if (decision.verb === 'deny' && text === '') {
      setFailure('Say why you deny it: the agent is told this reason.');
      return;
    }
    setBusy(true);
    setFailure(undefined);
    try {
      const decided = await api<ApprovalRequest>(
        `/v1/mcp/approvals/${decision.request.id}/${decision.verb}`,
        { method: 'POST', body: text === '' ? {} : { reason: text } },
      );
      setDone(decided);
      setDecision(null);
      pending.reload();
      history.reload();
      window.dispatchEvent(new Event(APPROVALS_CHANGED));
    } catch (err) {
      setFailure(err instanceof ApiError ? `${err.message} (${err.code})` : String(err));
    } finally {
      setBusy(false);
    }
  };

  const waiting = pending.data?.data ?? [];
  const decided = (history.data?.data ?? []).filter((r) => r.status !== 'pending');
  const target = decision?.request;

  return (
    <section aria-labelledby="approvals-title">
      <header class="page-header">
        <h1 id="approvals-title">Approvals</h1>
      </header>
      <p>
        Tools whose policy is <em>Admin approval</em> run only after a member with the admin
        permission other than the requester approves the call. Once approved, the agent’s same call
        runs once, before the approval expires; a denial’s reason is told to the agent.
      </p>
      {done ? (
        <p class="notice" role="status" tabIndex={-1} ref={notice}>
          {done.status === 'approved' ? 'Approved' : 'Denied'} <strong>{done.tool}</strong> for{' '}
          {done.requester_name}.{' '}
          {done.status === 'approved'
            ? 'Their agent’s same call now runs once, until the approval expires.'
            : 'Their agent is told your reason; nothing runs.'}
        </p>
      ) : null}
      <h2 id="pending-title">Waiting for a decision</h2>
      <ErrorNote error={pending.error} />
      <LoadedRows
        rows={pending.data === undefined ? undefined : waiting}
        error={pending.error}
        what="approval requests"
        empty="No request waits for a decision."
      >
        {(rows) => (
          <ul class="approvals" aria-labelledby="pending-title">
            {rows.map((r) => (
              <li key={r.id} class="approval">
                <p class="question">{r.message}</p>
                <dl class="facts">
                  <dt>Tool</dt>
                  <dd>
                    <code>{r.tool}</code>
                  </dd>
                  <dt>Arguments</dt>
                  <dd>
                    <code class="arguments">{JSON.stringify(r.arguments)}</code>
                  </dd>
                  <dt>Requested by</dt>
                  <dd>
                    {r.requester_name} &lt;{r.requester_email}&gt;
                  </dd>
                  <dt>Client</dt>
                  <dd>{r.client_name ?? <span class="muted">unnamed</span>}</dd>
                  <dt>Asked</dt>
                  <dd>
                    <Ago iso={r.created_at} />
                  </dd>
                  <dt>Expires</dt>
                  <dd>
                    <time dateTime={r.expires_at}>{new Date(r.expires_at).toLocaleString()}</time>
                  </dd>
                </dl>
                {r.requester_id === props.me ? (
                  <p class="muted">Your own request: another admin decides it.</p>
                ) : (
                  <div class="approval-actions">
                    <button
                      type="button"
                      onClick={() => open(r, 'approve')}
                      aria-label={`Approve ${r.tool} for ${r.requester_name} (request ${r.id})`}
                    >
                      Approve…
                    </button>
                    <button
                      type="button"
                      class="danger"
                      onClick={() => open(r, 'deny')}
                      aria-label={`Deny ${r.tool} for ${r.requester_name} (request ${r.id})`}
                    >
                      Deny…
                    </button>
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      </LoadedRows>
      <h2>Decided</h2>
      <ErrorNote error={history.error} />
      {history.data === undefined ? null : decided.length === 0 ? (
        <p class="empty">No request has been decided yet.</p>
      ) : (
        <ListTable columns={DECIDED_COLUMNS} rows={decided} rowKey={(r) => r.id} />
      )}
      <Pager {...pages.pager(history.data?.next_cursor)} />
      <ConfirmDialog
        open={decision !== null}
        title={decision?.verb === 'deny' ? 'Deny this call?' : 'Approve this call?'}
        confirmLabel={decision?.verb === 'deny' ? 'Deny' : 'Approve'}
        busy={busy}
        error={failure}
        onCancel={() => setDecision(null)}
        onConfirm={() => void decide()}
      >
        {target ? (
          <>
            <p>
              {target.requester_name}’s agent ({target.client_name ?? 'unnamed client'}) asks to run{' '}
              <code>{target.tool}</code>: {target.message}
            </p>
            <label class="reason">
              {decision?.verb === 'deny' ? 'Reason (told to the agent)' : 'Reason (optional)'}
              <textarea
                name="reason"
                rows={3}
                maxLength={1000}
                required={decision?.verb === 'deny'}
                value={reason}
                onInput={(e) => setReason(e.currentTarget.value)}
              />
            </label>
          </>
        ) : null}
      </ConfirmDialog>
    </section>
  );
}

/**
 * The newest call of the history that carries this request's id (the call that ran, or a replay
 * refused after it); its detail shows the whole chain and links the call that ran.
 */
function CallsLink(props: { request: ApprovalRequest }) {
  const calls = useApi<Page<ToolCall>>('/v1/mcp/tool-calls', {
    approval_id: props.request.id,
    since: props.request.created_at,
    limit: 1,
  });
  const newest = calls.data?.data[0];
  return newest === undefined ? null : (
    <a href={`/admin/calls/${newest.id}`} aria-label={`The call of request ${props.request.id}`}>
      (the call)
    </a>
  );
}

const DECIDED_COLUMNS: ReadonlyArray<ListColumn<ApprovalRequest>> = [
  { label: 'Asked', cell: (r) => <Ago iso={r.created_at} /> },
  {
    label: 'Tool',
    cell: (r) => (
      <>
        <code>{r.tool}</code>
        <div class="muted small">{r.message}</div>
      </>
    ),
  },
  { label: 'Requested by', cell: (r) => r.requester_name },
  {
    label: 'Status',
    cell: (r) => (
      <>
        <StatusBadge status={r.status} />
        {r.executed_at ? (
          <div class="muted small">
            ran <Ago iso={r.executed_at} /> <CallsLink request={r} />
          </div>
        ) : null}
      </>
    ),
  },
  { label: 'Decided by', cell: (r) => r.decided_by_name ?? <span class="muted">—</span> },
  { label: 'Reason', cell: (r) => r.reason ?? <span class="muted">—</span> },
];
