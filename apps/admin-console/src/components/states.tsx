import type { ApiError } from '../api.js';

/** What an API failure means for the person looking at the page, and what they can do. */
export function ErrorNote(props: { error: ApiError | undefined }) {
  const e = props.error;
  if (e === undefined) return null;
  const hint =
    e.code === 'insufficient_permission'
      ? 'Your membership lacks the permission this page needs; an organisation admin can grant it.'
      : e.code === 'UNAUTHENTICATED' || e.code === 'INVALID_TOKEN'
        ? 'Your session has ended. Reload the page to sign in again.'
        : null;
  return (
    <div class="error" role="alert">
      <strong>{e.message}</strong> <code>{e.code}</code>
      {hint ? <p>{hint}</p> : null}
    </div>
  );
}

export function Loading(props: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {props.what}…
    </p>
  );
}
