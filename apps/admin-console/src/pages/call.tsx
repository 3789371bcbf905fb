import { OutcomeBadge, StatusBadge } from '../components/badges.js';
import { PersonName, TokenName } from '../components/names.js';
import { ErrorNote, Loading } from '../components/states.js';
import { duration, fullTime } from '../format.js';
import type { ToolCallDetail } from '../types.js';
import { useApi } from '../use-api.js';
import { AuditEventCards } from './audit-events-list.js';

/** One tool call: what was called, by whom, how it ended, its confirmation and its writes. */
export function CallPage(props: { id: string }) {
  const call = useApi<ToolCallDetail & { outcome: string }>(`/v1/mcp/tool-calls/${props.id}`);
  const c = call.data;
  return (
    <section aria-labelledby="call-title">
      <p>
        <a href="/admin/">← Activity</a>
      </p>
      <h1 id="call-title">Tool call {c ? <code>{c.tool}</code> : null}</h1>
      <ErrorNote error={call.error} />
      {c === undefined ? (
        call.error ? null : (
          <Loading what="the call" />
        )
      ) : (
        <>
          <dl class="facts">
            <dt>Outcome</dt>
            <dd>
              <OutcomeBadge outcome={c.outcome} status={c.status} />
            </dd>
            <dt>When</dt>
            <dd>
              <time dateTime={c.created_at}>{fullTime(c.created_at)}</time>
            </dd>
            <dt>Duration</dt>
            <dd>{duration(c.duration_ms)}</dd>
            <dt>Person</dt>
            <dd>
              <PersonName id={c.user_id} />
            </dd>
            <dt>Token</dt>
            <dd>
              <TokenName id={c.token_id} />
            </dd>
            <dt>Client</dt>
            <dd>{c.client_name ?? <span class="muted">not reported</span>}</dd>
            <dt>Era</dt>
            <dd>
              {c.era} <span class="muted">(protocol {c.protocol_version})</span>
            </dd>
            <dt>Arguments digest</dt>
            <dd>
              {c.arguments_digest ? (
                <code class="digest" title="SHA-256 of the canonical JSON arguments">
                  {c.arguments_digest}
                </code>
              ) : (
                <span class="muted">none</span>
              )}
            </dd>
            <dt>Request id</dt>
            <dd>
              <code title="Issued by this server; the audit events below carry it">
                {c.request_id}
              </code>
            </dd>
            <dt>Client's request id</dt>
            <dd>
              {c.correlation_id ? (
                <code title="The client's X-Request-Id, for its own logs; nothing is linked by it">
                  {c.correlation_id}
                </code>
              ) : (
                <span class="muted">none sent</span>
              )}
            </dd>
            <dt>Trace</dt>
            <dd>
              {c.trace_id === null ? (
                <span class="muted">not traced</span>
              ) : c.trace_url === null ? (
                <code>{c.trace_id}</code>
              ) : (
                <a href={c.trace_url} target="_blank" rel="noopener noreferrer">
                  <code>{c.trace_id}</code>
                </a>
              )}
            </dd>
          </dl>

          <h2>Confirmation</h2>
          {c.confirmation ? (
            <div class="card">
              <p>
                <StatusBadge status={c.confirmation.status} /> «{c.confirmation.message}»
              </p>
              <p>
                Asked of <PersonName id={c.confirmation.user_id} />
                {c.confirmation.decided_at
                  ? `, answered ${fullTime(c.confirmation.decided_at)}`
                  : ', not answered'}
                . <a href={`/admin/confirmations/${c.confirmation.id}`}>Open the confirmation</a>
              </p>
            </div>
          ) : (
            <p class="empty">This call used no confirmation.</p>
          )}

          <h2>Audit events it produced</h2>
          <AuditEventCards events={c.audit_events} empty="This call changed nothing." />
        </>
      )}
    </section>
  );
}
