import type { AppConfig } from './app.config.js';

/**
 * The server's master secret (`SERVER_SECRET_KEYS`), the signing key first. Every consumer derives
 * its keys from this, never from an empty string: with no key it throws, so a server without its
 * secret fails while starting (the consumers ask in their constructors), not at the first sign-in.
 */
export function serverSecretKeys(
  config: Pick<AppConfig, 'serverSecretKeys'>,
): readonly [string, ...string[]] {
  const [signing, ...others] = config.serverSecretKeys;
  if (signing === undefined || signing === '')
    throw new Error(
      'SERVER_SECRET_KEYS is empty: the server derives its session, cookie, CSRF, OIDC state, invitation form and requestState keys from it',
    );
  return [signing, ...others];
}
