import { ErrorBoundary, LocationProvider, Route, Router, useLocation } from 'preact-iso';
import type { VNode } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { DirectoryProvider } from './components/names.js';
import { ErrorNote, Loading } from './components/states.js';
import { ActivityPage } from './pages/activity.js';
import { APPROVALS_CHANGED, ApprovalsPage } from './pages/approvals.js';
import { AuditPage } from './pages/audit.js';
import { CallPage } from './pages/call.js';
import { ConfirmationPage, ConfirmationsPage } from './pages/confirmations.js';
import { PoliciesPage } from './pages/policies.js';
import { SignInPage } from './pages/sign-in.js';
import { TokensPage } from './pages/tokens.js';
import {
  can,
  chooseOrganization,
  loadSession,
  signOut,
  type Session,
  type SessionState,
} from './session.js';
import type { Facets } from './types.js';
import { useApi, useInterval } from './use-api.js';

const NAV = [
  { href: '/admin/', label: 'Activity', permission: 'audit.read' },
  { href: '/admin/confirmations', label: 'Confirmations', permission: 'audit.read' },
  { href: '/admin/audit', label: 'Audit trail', permission: 'audit.read' },
  { href: '/admin/tokens', label: 'Clients and tokens', permission: 'admin' },
  { href: '/admin/approvals', label: 'Approvals', permission: 'admin' },
  { href: '/admin/policies', label: 'Policies', permission: 'admin' },
] as const;

export function App() {
  const [state, setState] = useState<
    SessionState | { kind: 'loading' } | { kind: 'error'; error: ApiError }
  >({
    kind: 'loading',
  });
  useEffect(() => {
    loadSession().then(setState, (err: unknown) =>
      setState({
        kind: 'error',
        error: err instanceof ApiError ? err : new ApiError(0, 'CLIENT_ERROR', String(err)),
      }),
    );
  }, []);
  useEffect(() => {
    if (state.kind !== 'loading') performance.mark('console:session');
  }, [state.kind]);

  if (state.kind === 'loading') return <Loading what="your session" />;
  if (state.kind === 'error')
    return (
      <main id="main" class="narrow">
        <ErrorNote error={state.error} />
      </main>
    );
  if (state.kind === 'signed-out') return <SignInPage />;
  if (state.kind === 'no-organization')
    return (
      <main id="main" class="narrow">
        <h1>No organisation</h1>
        <p>
          {state.name}, you are signed in but belong to no organisation. An organisation admin can
          add you.
        </p>
        <SignOutButton />
      </main>
    );
  return (
    <LocationProvider scope="/admin">
      <SignedIn session={state.session} />
    </LocationProvider>
  );
}

function SignOutButton() {
  return (
    <button type="button" onClick={() => void signOut().then(() => location.assign('/admin/'))}>
      Sign out
    </button>
  );
}

function SignedIn(props: { session: Session }) {
  const { session } = props;
  const history = can(session, 'audit.read');
  const admin = can(session, 'admin');
  const facets = useApi<Facets>(history ? '/v1/mcp/tool-calls/facets' : null);
  const { path } = useLocation();
  const nav = NAV.filter((n) => can(session, n.permission));
  const pending = usePendingApprovals(admin);
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <div class="brand">
          {session.memberships.length > 1 ? (
            <label>
              <span class="visually-hidden">Organisation</span>
              <select
                value={session.organization.id}
                onChange={(e) => chooseOrganization(e.currentTarget.value)}
              >
                {session.memberships.map((m) => (
                  <option key={m.organization_id} value={m.organization_id}>
                    {m.organization_name}
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <strong>{session.organization.name}</strong>
          )}
          <span class="muted"> admin console</span>
        </div>
        <nav aria-label="Console">
          <ul>
            {nav.map((n) => (
              <li key={n.href}>
                <a
                  href={n.href}
                  aria-current={
                    (n.href === '/admin/' ? isActivity(path) : path.startsWith(n.href))
                      ? 'page'
                      : undefined
                  }
                >
                  {n.label}
                  {n.href === '/admin/approvals' && pending !== undefined && pending > 0 ? (
                    <span class="nav-count">
                      {pending}
                      <span class="visually-hidden"> waiting</span>
                    </span>
                  ) : null}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span title={session.person.email}>{session.person.name}</span>{' '}
          <span class="muted">({session.membership.role})</span> <SignOutButton />
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {nav.length === 0 ? (
          <p class="notice">
            {session.membership.status === 'active' ? (
              <>
                Your membership has neither <code>audit.read</code> nor <code>admin</code>: there is
                nothing this console can show you. An organisation admin can grant them.
              </>
            ) : (
              <>
                Your membership of {session.organization.name} is inactive (
                <code>membership_inactive</code>): whoever manages members can reactivate it.
              </>
            )}
          </p>
        ) : (
          <DirectoryProvider facets={facets.data}>
            <ErrorBoundary>
              <Router>
                {routes(history, admin, facets.data, nav[0]?.href ?? '/admin/', session.person.id)}
              </Router>
            </ErrorBoundary>
          </DirectoryProvider>
        )}
      </main>
    </>
  );
}

/** The pages this person's permissions reach; anything else is "not here". */
function routes(
  history: boolean,
  admin: boolean,
  facets: Facets | undefined,
  first: string,
  me: string,
): VNode[] {
  const list: VNode[] = [];
  if (history)
    list.push(
      <Route key="activity" path="/admin/" component={ActivityPage} facets={facets} />,
      <Route key="call" path="/admin/calls/:id" component={CallPage} />,
      <Route key="confirmations" path="/admin/confirmations" component={ConfirmationsPage} />,
      <Route key="confirmation" path="/admin/confirmations/:id" component={ConfirmationPage} />,
      <Route key="audit" path="/admin/audit" component={AuditPage} />,
    );
  if (admin)
    list.push(
      <Route key="tokens" path="/admin/tokens" component={TokensPage} />,
      <Route key="approvals" path="/admin/approvals" component={ApprovalsPage} me={me} />,
      <Route key="policies" path="/admin/policies" component={PoliciesPage} />,
    );
  list.push(<Route key="default" default component={() => <NotHere first={first} />} />);
  return list;
}

/**
 * How many approval requests wait (admins only): refreshed every 30 s and whenever the Approvals
 * page decides one.
 */
function usePendingApprovals(admin: boolean): number | undefined {
  const count = useApi<{ pending: number }>(admin ? '/v1/mcp/approvals/pending-count' : null);
  useInterval(count.reload, 30_000, admin);
  useEffect(() => {
    const changed = (): void => count.reload();
    window.addEventListener(APPROVALS_CHANGED, changed);
    return () => window.removeEventListener(APPROVALS_CHANGED, changed);
  }, [count.reload]);
  return count.data?.pending;
}

function isActivity(path: string): boolean {
  return path === '/admin/' || path === '/admin' || path.startsWith('/admin/calls/');
}

function NotHere(props: { first: string }) {
  return (
    <section>
      <h1>Not here</h1>
      <p>
        This page does not exist, or your permissions do not reach it.{' '}
        <a href={props.first}>Go to the console’s first page</a>.
      </p>
    </section>
  );
}
