import type {
  SessionMembershipView,
  SessionView,
} from '../../../libs/oauth-server/src/session-view.js';
import { api, csrfToken, setSessionHeaders } from './api.js';

/** The signed-in person, looking at one of their organisations. */
export interface Session {
  person: { id: string; email: string; name: string };
  organization: { id: string; slug: string; name: string };
  membership: { role: string; status: string; permissions: string[] };
  memberships: SessionMembershipView[];
}

export type SessionState =
  | { kind: 'signed-in'; session: Session }
  | { kind: 'signed-out' }
  | { kind: 'no-organization'; name: string };

const CHOSEN_ORGANIZATION = 'admin-console.organization';

/** An active membership whose permissions reach a page of the console. */
function useful(m: SessionMembershipView): boolean {
  return (
    m.status === 'active' &&
    (m.permissions.includes('audit.read') || m.permissions.includes('admin'))
  );
}

/** Where to sign in, coming back to `returnTo` (a path of this console) afterwards. */
export function signInUrl(returnTo: string): string {
  return `/signin?return_to=${encodeURIComponent(returnTo)}`;
}

/**
 * The person signed in on this browser (the session the OAuth consent page uses too) and the
 * organisation to look at: the one chosen last time when still theirs, else the first active
 * membership whose permissions reach a page of the console.
 */
export async function loadSession(): Promise<SessionState> {
  const view = await api<SessionView>('/session');
  if (view.person === null) return { kind: 'signed-out' };
  const memberships = view.person.memberships;
  if (memberships.length === 0) return { kind: 'no-organization', name: view.person.name };
  const chosen = localStorage.getItem(CHOSEN_ORGANIZATION);
  const membership =
    memberships.find((m) => m.organization_id === chosen) ??
    memberships.find(useful) ??
    memberships[0];
  setSessionHeaders({ csrf: view.csrf_token, organization: membership.organization_id });
  return {
    kind: 'signed-in',
    session: {
      person: { id: view.person.user_id, email: view.person.email, name: view.person.name },
      organization: {
        id: membership.organization_id,
        slug: membership.organization_slug,
        name: membership.organization_name,
      },
      membership: {
        role: membership.role,
        status: membership.status,
        permissions: membership.permissions,
      },
      memberships,
    },
  };
}

export function chooseOrganization(id: string): void {
  localStorage.setItem(CHOSEN_ORGANIZATION, id);
  location.assign('/admin/');
}

/** Ends the session on every replica (the server answers with a redirect to the sign-in page). */
export async function signOut(): Promise<void> {
  await fetch('/signout', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'x-csrf-token': csrfToken() },
    redirect: 'manual',
  });
  setSessionHeaders(null);
}

export function can(session: Session, permission: string): boolean {
  return (
    session.membership.status === 'active' && session.membership.permissions.includes(permission)
  );
}
