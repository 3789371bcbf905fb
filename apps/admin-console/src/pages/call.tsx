import { OutcomeBadge, StatusBadge } from '../components/badges.js';
import { PersonName, TokenName } from '../components/names.js';
import { ErrorNote, Loading } from '../components/states.js';
import { duration, fullTime } from '../format.js';
import type { ApprovalChain, ToolCallDetail } from '../types.js';
import { useApi } from '../use-api.js';
import { AuditEventCards } from './audit-events-list.js';

/**
 * One tool call: what was called, by whom, how it ended, the decision it needed (its confirmation,
 * or its approval request as a chain) and its writes.
 */
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

          {c.approval ? <ApprovalSteps chain={c.approval} callId={c.id} /> : null}

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
            <p class="empty">
              {c.approval
                ? 'This call needed an admin’s approval (above), not a confirmation.'
                : 'This call used no confirmation.'}
            </p>
          )}

          <h2>Audit events it produced</h2>
          <AuditEventCards events={c.audit_events} empty="This call changed nothing." />
        </>
      )}
    </section>
  );
}

/** The approval request the call ran under or was refused for: asked → decided → what ran. */
function ApprovalSteps(props: { chain: ApprovalChain; callId: string }) {
  const { chain, callId } = props;
  const ran = chain.executed;
  return (
    <>
      <h2>Approval</h2>
      <ol class="card chain" aria-label="Approval steps">
        <li>
          <strong>Asked</strong>{' '}
          <time dateTime={chain.requested.at}>{fullTime(chain.requested.at)}</time> by{' '}
          {chain.requested.name}
          {chain.requested.client_name ? ` through ${chain.requested.client_name}` : ''}{' '}
          <span class="muted">
            (request <code>{chain.id}</code>, <StatusBadge status={chain.status} />)
          </span>
        </li>
        <li>
          {chain.decided ? (
            <>
              <strong>{chain.decided.decision === 'approved' ? 'Approved' : 'Denied'}</strong>{' '}
              <time dateTime={chain.decided.at}>{fullTime(chain.decided.at)}</time> by{' '}
              {chain.decided.name ?? <PersonName id={chain.decided.user_id} />} on{' '}
              {chain.decided.on}
              {chain.decided.reason ? <> — reason: «{chain.decided.reason}»</> : null}
            </>
          ) : (
            <>
              <strong>Not decided</strong>
              <span class="muted">
                {' '}
                (open until <time dateTime={chain.expires_at}>{fullTime(chain.expires_at)}</time>;
                decided on <a href="/admin/approvals">the Approvals page</a>)
              </span>
            </>
          )}
        </li>
        <li>
          {ran ? (
            <>
              <strong>Ran</strong> <time dateTime={ran.at}>{fullTime(ran.at)}</time>{' '}
              {ran.tool_call_id === callId ? (
                '(this call)'
              ) : ran.tool_call_id ? (
                <a href={`/admin/calls/${ran.tool_call_id}`}>the call that ran</a>
              ) : (
                <span class="muted">
                  (request <code>{ran.request_id}</code>; its history row is gone)
                </span>
              )}
            </>
          ) : (
            <>
              <strong>Nothing ran</strong>
              <span class="muted"> under this request</span>
            </>
          )}
        </li>
      </ol>
    </>
  );
}
