/**
 * `details` of a 401 whose challenge must use the `DPoP` scheme (RFC 9449 §7.1): the token is bound
 * to a key, or the request used that scheme. The client learns which scheme to use from it too.
 */
export const DPOP_SCHEME_DETAILS = { authentication_scheme: 'DPoP' } as const;

/** Whether a 401's `details` ask for the DPoP challenge. */
export function wantsDpopChallenge(details: unknown): boolean {
  return (
    typeof details === 'object' &&
    details !== null &&
    'authentication_scheme' in details &&
    details.authentication_scheme === DPOP_SCHEME_DETAILS.authentication_scheme
  );
}
