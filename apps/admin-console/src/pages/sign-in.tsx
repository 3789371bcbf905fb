import { signInUrl } from '../session.js';

/** Not signed in: one link to the organisation's sign-in, coming back to the page asked for. */
export function SignInPage() {
  const returnTo = `${location.pathname}${location.search}`;
  return (
    <main id="main" class="narrow sign-in">
      <h1>Platform admin console</h1>
      <p>
        See what agents did in your organisation, what people confirmed, and revoke the clients you
        no longer trust.
      </p>
      <p>
        <a class="button primary" href={signInUrl(returnTo)}>
          Sign in
        </a>
      </p>
      <p class="muted small">
        You need the <code>audit.read</code> permission to see activity, and <code>admin</code> to
        see clients and tokens.
      </p>
    </main>
  );
}
