import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { StatusBadge } from '../components/badges.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Pager, useCursorPages } from '../components/pager.js';
import { Ago } from '../components/time.js';
import { ListTable, type ListColumn } from '../components/rows.js';
import { ErrorNote, Loading } from '../components/states.js';
import { useDirectory } from '../components/names.js';
import { ago, shortId } from '../format.js';
import type { Member, Page, Token } from '../types.js';
import { useApi } from '../use-api.js';

/**
 * Connected clients (OAuth grants) and personal tokens of the organisation, with their last use;
 * revoking one asks first, and takes effect on the token's next request.
 */
export function TokensPage() {
  const pages = useCursorPages();
  const tokens = useApi<Page<Token>>('/v1/tokens', { limit: 50, cursor: pages.cursor });
  const members = useApi<Page<Member>>('/v1/members', { limit: 100 });
  const people = useMemo(
    () => new Map((members.data?.data ?? []).map((m) => [m.user_id, m])),
    [members.data],
  );
  const [target, setTarget] = useState<Token | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const [revoked, setRevoked] = useState<Token | null>(null);
  const { people: known } = useDirectory();
  // After a revoke the dialog and its button are gone: keyboard focus goes to the notice that
  // says what happened, not to <body>.
  const notice = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (revoked !== null) notice.current?.focus();
  }, [revoked]);

  const revoke = async (): Promise<void> => {
    if (target === null) return;
    setBusy(true);
    setFailure(undefined);
    try {
      const done = await api<Token>(`/v1/tokens/${target.id}`, { method: 'DELETE' });
      setRevoked(done);
      setTarget(null);
      tokens.reload();
    } catch (err) {
      setFailure(err instanceof ApiError ? `${err.message} (${err.code})` : String(err));
    } finally {
      setBusy(false);
    }
  };

  const rows = tokens.data?.data ?? [];
  const grants = rows.filter((t) => t.kind === 'oauth');
  const personal = rows.filter((t) => t.kind === 'personal');
  // A current member by the member list; a former one by the name the history knows them by.
  const owner = (t: Token): string => {
    const m = people.get(t.user_id);
    if (m) return `${m.name} <${m.email}>`;
    const former = known.get(t.user_id);
    if (former) return `${former.name} <${former.email}> (no longer a member)`;
    return shortId(t.user_id);
  };

  return (
    <section aria-labelledby="tokens-title">
      <header class="page-header">
        <h1 id="tokens-title">Connected clients and tokens</h1>
      </header>
      {revoked ? (
        <p class="notice" role="status" tabIndex={-1} ref={notice}>
          Revoked <strong>{revoked.client_name ?? revoked.name}</strong>. Its next request is
          refused with 401 <code>INVALID_TOKEN</code>; nothing else changes.
        </p>
      ) : null}
      <ErrorNote error={tokens.error} />
      {tokens.data === undefined ? (
        tokens.error ? null : (
          <Loading what="tokens" />
        )
      ) : (
        <>
          <h2>Connected clients (OAuth)</h2>
          <TokenTable
            rows={grants}
            owner={owner}
            empty="No MCP client has been authorized through OAuth."
            onRevoke={(t) => {
              setFailure(undefined);
              setTarget(t);
            }}
          />
          <h2>Personal tokens</h2>
          <TokenTable
            rows={personal}
            owner={owner}
            empty="No personal tokens."
            onRevoke={(t) => {
              setFailure(undefined);
              setTarget(t);
            }}
          />
        </>
      )}
      <Pager {...pages.pager(tokens.data?.next_cursor)} />
      <ConfirmDialog
        open={target !== null}
        title={target?.kind === 'oauth' ? 'Revoke this client’s access?' : 'Revoke this token?'}
        confirmLabel="Revoke"
        busy={busy}
        error={failure}
        onCancel={() => setTarget(null)}
        onConfirm={() => void revoke()}
      >
        {target ? (
          <p>
            <strong>{target.client_name ?? target.name}</strong> ({target.token_prefix}…), acting as{' '}
            {owner(target)}, will be refused from its next request on. This cannot be undone: the
            client has to be authorized again.
          </p>
        ) : null}
      </ConfirmDialog>
    </section>
  );
}

function TokenTable(props: {
  rows: Token[];
  owner: (t: Token) => string;
  empty: string;
  onRevoke: (t: Token) => void;
}) {
  if (props.rows.length === 0) return <p class="empty">{props.empty}</p>;
  const columns: ReadonlyArray<ListColumn<Token>> = [
    {
      label: 'Name',
      cell: (t) => (
        <>
          <strong>{t.client_name ?? t.name}</strong>
          <div class="muted small">
            <code>{t.token_prefix}…</code> · created {ago(t.created_at)}
          </div>
        </>
      ),
    },
    { label: 'Person', cell: (t) => props.owner(t) },
    { label: 'Scopes', cell: (t) => <span class="small">{t.scopes.join(', ')}</span> },
    {
      label: 'Last used',
      cell: (t) =>
        t.last_used_at ? <Ago iso={t.last_used_at} /> : <span class="muted">never</span>,
    },
    { label: 'Status', cell: (t) => <StatusBadge status={t.status} /> },
    {
      label: 'Actions',
      hidden: true,
      cell: (t) =>
        t.status === 'active' ? (
          <button
            type="button"
            class="danger"
            onClick={() => props.onRevoke(t)}
            aria-label={`Revoke ${t.client_name ?? t.name}`}
          >
            Revoke
          </button>
        ) : null,
    },
  ];
  return <ListTable columns={columns} rows={props.rows} rowKey={(t) => t.id} />;
}
