/*
 * `GET /session`'s answer. This file imports nothing: the admin console (a browser bundle,
 * apps/admin-console) reads the answer as this too.
 */

/** One organisation the signed-in person belongs to. */
export interface SessionMembershipView {
  organization_id: string;
  organization_slug: string;
  organization_name: string;
  role: string;
  status: string;
  permissions: string[];
}

export interface SessionPersonView {
  user_id: string;
  email: string;
  name: string;
  session_expires_at: string;
  memberships: SessionMembershipView[];
}

/** Who is signed in on this browser (null: nobody), and the CSRF token same-origin scripts send. */
export interface SessionView {
  person: SessionPersonView | null;
  csrf_token: string;
  sign_in_url: string;
}
