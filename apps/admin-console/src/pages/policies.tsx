import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { PersonName } from '../components/names.js';
import { cardLabelOf, LoadedRows, RowsTable } from '../components/rows.js';
import { ErrorNote } from '../components/states.js';
import { Ago } from '../components/time.js';
import type { ConfirmationPolicy } from '../types.js';
import { useApi } from '../use-api.js';

const MODES: { value: ConfirmationPolicy['mode']; label: string; means: string }[] = [
  {
    value: 'none',
    label: 'Nobody: runs at once',
    means:
      'The tool runs as soon as the agent calls it. The default of a tool that changes data without destroying it; a destructive tool cannot be set to it.',
  },
  {
    value: 'form',
    label: 'Form',
    means:
      'The agent’s own client shows the person a confirmation form (2026-07-28 clients that declare form elicitation). The default of a destructive tool.',
  },
  {
    value: 'verified',
    label: 'Verified person',
    means:
      'The person who authorized the client confirms on this server’s own page while signed in; anyone else signed in is refused. Needs a client with URL-mode elicitation (2026-07-28, or 2025-11-25); other clients are refused with confirmation_required and nothing runs.',
  },
  {
    value: 'approval',
    label: 'Admin approval',
    means:
      'Another member with the admin permission, never the requester, approves or denies the call on the Approvals page; the agent is told approval_pending, and its same call retried after approval runs once. Any client, either protocol era.',
  },
];

/**
 * How each tool that asks before it runs is confirmed, and how long a question stays open. A
 * change is versioned: it is refused if someone changed the policy since the page loaded it, and
 * a question asked under the older version is asked again.
 */
export function PoliciesPage() {
  const list = useApi<{ data: ConfirmationPolicy[] }>('/v1/mcp/confirmation-policies');
  const [saved, setSaved] = useState<ConfirmationPolicy | null>(null);
  const notice = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (saved !== null) notice.current?.focus();
  }, [saved]);

  return (
    <section aria-labelledby="policies-title">
      <header class="page-header">
        <h1 id="policies-title">Confirmation policies</h1>
      </header>
      <p>
        Before a destructive tool runs, a person decides; a tool that only changes data runs at once
        unless you choose otherwise here. Choose per tool who decides and how long the question
        stays open. Every replica follows a change from the next call on (within a second).
      </p>
      <dl class="facts">
        {MODES.map((m) => (
          <Fragment key={m.value}>
            <dt>{m.label}</dt>
            <dd>{m.means}</dd>
          </Fragment>
        ))}
      </dl>
      {saved ? (
        <p class="notice" role="status" tabIndex={-1} ref={notice}>
          Saved <strong>{saved.tool}</strong>: {labelOf(saved.mode)}
          {saved.mode === 'none'
            ? ''
            : `, questions open for ${minutes(saved.expiry_seconds)}`}{' '}
          (version {saved.version}). Questions asked under an earlier version are asked again.
        </p>
      ) : null}
      <ErrorNote error={list.error} />
      <LoadedRows
        rows={list.data?.data}
        error={list.error}
        what="policies"
        empty="No tool asks before it runs."
      >
        {(rows) => (
          <RowsTable columns={Object.values(POLICY_COLUMNS)}>
            {rows.map((p) => (
              <PolicyRow
                key={`${p.tool}:${p.version}`}
                policy={p}
                onSaved={(done) => {
                  setSaved(done);
                  list.reload();
                }}
              />
            ))}
          </RowsTable>
        )}
      </LoadedRows>
    </section>
  );
}

/** The list's columns; each row is a form of its own ({@link PolicyRow}), its cells named by them. */
const POLICY_COLUMNS = {
  tool: { label: 'Tool' },
  mode: { label: 'Who decides' },
  ttl: { label: 'Open for (minutes)', cardLabel: 'Open for' },
  changed: { label: 'Changed' },
  actions: { label: 'Actions', hidden: true },
};

function PolicyRow(props: {
  policy: ConfirmationPolicy;
  onSaved: (p: ConfirmationPolicy) => void;
}) {
  const p = props.policy;
  const [mode, setMode] = useState(p.mode);
  const [openFor, setOpenFor] = useState(String(p.expiry_seconds / 60));
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const seconds = Math.round(Number(openFor) * 60);
  const valid = Number.isFinite(seconds) && seconds >= 60 && seconds <= 604_800;
  const changed = mode !== p.mode || seconds !== p.expiry_seconds;

  const save = async (): Promise<void> => {
    setBusy(true);
    setFailure(undefined);
    try {
      const done = await api<ConfirmationPolicy>(`/v1/mcp/confirmation-policies/${p.tool}`, {
        method: 'PATCH',
        body: { mode, expiry_seconds: seconds, version: p.version },
      });
      props.onSaved(done);
    } catch (err) {
      setFailure(err instanceof ApiError ? `${err.message} (${err.code})` : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <tr>
      <td data-label={cardLabelOf(POLICY_COLUMNS.tool)}>
        <strong>{p.title}</strong>
        <div class="muted small">
          <code>{p.tool}</code>
        </div>
      </td>
      <td data-label={cardLabelOf(POLICY_COLUMNS.mode)}>
        <select
          name={`mode-${p.tool}`}
          aria-label={`Who decides ${p.tool}`}
          value={mode}
          onChange={(e) => setMode(modeOf(e.currentTarget.value))}
        >
          {MODES.filter((m) => m.value !== 'none' || p.kind === 'write').map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
              {m.value === defaultModeOf(p.kind) ? ' (default)' : ''}
            </option>
          ))}
        </select>
      </td>
      <td data-label={cardLabelOf(POLICY_COLUMNS.ttl)}>
        <input
          type="number"
          name={`expiry-${p.tool}`}
          aria-label={`Minutes a question about ${p.tool} stays open`}
          min={1}
          max={10_080}
          step="any"
          value={openFor}
          onInput={(e) => setOpenFor(e.currentTarget.value)}
          aria-invalid={!valid}
        />
        {valid ? null : <div class="error small">1 minute to 7 days</div>}
      </td>
      <td data-label={cardLabelOf(POLICY_COLUMNS.changed)}>
        {p.updated_at === null ? (
          <span class="muted">never (default)</span>
        ) : (
          <>
            <Ago iso={p.updated_at} /> by <PersonName id={p.updated_by} />
            <div class="muted small">version {p.version}</div>
          </>
        )}
        {failure ? (
          <p class="error" role="alert">
            {failure}
          </p>
        ) : null}
      </td>
      <td data-label={cardLabelOf(POLICY_COLUMNS.actions)}>
        <button
          type="button"
          disabled={!changed || !valid || busy}
          onClick={() => void save()}
          aria-label={`Save the policy of ${p.tool}`}
        >
          {busy ? 'Saving…' : 'Save'}
        </button>
      </td>
    </tr>
  );
}

/** The mode of a tool nobody has set (as the server's policy list also says, at version 0). */
function defaultModeOf(kind: ConfirmationPolicy['kind']): ConfirmationPolicy['mode'] {
  return kind === 'destructive' ? 'form' : 'none';
}

function modeOf(value: string): ConfirmationPolicy['mode'] {
  return MODES.find((m) => m.value === value)?.value ?? 'form';
}

function labelOf(mode: ConfirmationPolicy['mode']): string {
  return MODES.find((m) => m.value === mode)?.label ?? mode;
}

function minutes(seconds: number): string {
  const m = seconds / 60;
  return `${Number.isInteger(m) ? m : m.toFixed(1)} minute${m === 1 ? '' : 's'}`;
}
