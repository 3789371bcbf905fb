import { api, ApiError, setCsrfToken } from './api.js';
import type { Me } from './types.js';

/** The signed-in person as the console's session endpoint describes them. */
export interface Session extends Me {
  csrf_token: string;
}

/** Where to sign in, coming back to `returnTo` (a path of this console) afterwards. */
export function signInUrl(signInPath: string, returnTo: string): string {
  const url = new URL(signInPath, window.location.origin);
  url.searchParams.set('return_to', returnTo);
  return `${url.pathname}${url.search}`;
}

export type SessionState =
  { kind: 'signed-in'; session: Session } | { kind: 'signed-out'; signInPath: string };

/** The session behind this browser's cookie, or where to sign in when there is none. */
export async function loadSession(): Promise<SessionState> {
  try {
    const session = await api<Session>('/admin/api/session');
    setCsrfToken(session.csrf_token);
    return { kind: 'signed-in', session };
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      setCsrfToken(null);
      return { kind: 'signed-out', signInPath: '/admin/api/sign-in' };
    }
    throw err;
  }
}

export async function signOut(): Promise<void> {
  await api<unknown>('/admin/api/sign-out', { method: 'POST' });
  setCsrfToken(null);
}

export function can(session: Session, permission: string): boolean {
  return session.membership.permissions.includes(permission);
}
