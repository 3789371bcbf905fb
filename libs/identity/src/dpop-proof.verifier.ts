import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { calculateJwkThumbprint, EmbeddedJWK, errors as joseErrors, jwtVerify } from 'jose';
import { DomainError } from '@app/errors';
import { DpopProofsRepository } from './dpop-proofs.repository.js';

/**
 * The algorithms a DPoP proof may be signed with, on the token endpoint and on every route that
 * accepts a bound token: asymmetric only (a proof is signed with the client's private key).
 */
export const DPOP_SIGNING_ALGORITHMS = ['ES256', 'EdDSA', 'Ed25519'] as const;

/**
 * How far a proof's `iat` may be from this server's clock, either way (seconds): the window the
 * token endpoint (oidc-provider) applies, so one rule holds for every proof. A proof is accepted
 * once within it (its `jti` is remembered until its `iat` leaves the window); no `DPoP-Nonce` is
 * issued, so the window and the replay store are what bound a captured proof's use.
 */
export const DPOP_PROOF_WINDOW_SECONDS = 300;

/** A request presenting a DPoP-bound access token. */
export interface DpopPresentation {
  /** The `DPoP` header values as received (exactly one is valid). */
  proofs: readonly string[];
  method: string;
  /** The URL the request was addressed to, without query or fragment (the proof's `htu`). */
  url: string;
  /** The access token the proof must be tied to (`ath`). */
  accessToken: string;
  /** The thumbprint of the key the token is bound to (`cnf.jkt`). */
  jkt: string;
}

function refused(reason: string): DomainError {
  return new DomainError(
    'INVALID_DPOP_PROOF',
    `The DPoP proof is not valid for this request: ${reason}`,
  );
}

/** A URL compared the way RFC 9449 §4.3 asks: scheme and host folded, no query or fragment. */
function comparable(url: string): string | undefined {
  const parsed = URL.parse(url);
  if (parsed === null) return undefined;
  parsed.search = '';
  parsed.hash = '';
  return parsed.href;
}

/**
 * Verifies the DPoP proof (RFC 9449 §4.3, §7.1) that must come with a DPoP-bound access token:
 * one `DPoP` header holding a `dpop+jwt` signed with one of {@link DPOP_SIGNING_ALGORITHMS} by
 * the public key it embeds; that key's thumbprint is the one the token is bound to; `htm` and
 * `htu` name this request; `iat` within {@link DPOP_PROOF_WINDOW_SECONDS}; `ath` is the token's
 * hash; its `jti` was never accepted before, on any replica. JWS verification is `jose`'s.
 */
@Injectable()
export class DpopProofVerifier {
  constructor(private readonly seen: DpopProofsRepository) {}

  async verify(p: DpopPresentation): Promise<void> {
    if (p.proofs.length !== 1) throw refused('send exactly one DPoP header');
    const proof = p.proofs[0] ?? '';
    let verified: Awaited<ReturnType<typeof jwtVerify>>;
    try {
      verified = await jwtVerify(proof, EmbeddedJWK, {
        typ: 'dpop+jwt',
        algorithms: [...DPOP_SIGNING_ALGORITHMS],
      });
    } catch (err) {
      if (err instanceof joseErrors.JOSEError)
        throw refused(
          `not a dpop+jwt signed by its embedded key with ${DPOP_SIGNING_ALGORITHMS.join(', ')}`,
        );
      throw err;
    }
    const { payload, protectedHeader } = verified;
    if (protectedHeader.jwk === undefined) throw refused('no embedded public key');
    if ((await calculateJwkThumbprint(protectedHeader.jwk, 'sha256')) !== p.jkt)
      throw refused('signed with another key than the one the access token is bound to');
    if (payload.htm !== p.method) throw refused(`htm is not ${p.method}`);
    const htu = typeof payload.htu === 'string' ? comparable(payload.htu) : undefined;
    if (htu === undefined || htu !== comparable(p.url)) throw refused(`htu is not ${p.url}`);
    const { iat, jti } = payload;
    if (typeof iat !== 'number' || !Number.isFinite(iat)) throw refused('no iat');
    const now = Date.now() / 1000;
    if (Math.abs(now - iat) > DPOP_PROOF_WINDOW_SECONDS)
      throw refused(
        `iat is more than ${DPOP_PROOF_WINDOW_SECONDS} s from the server's time; make a new proof`,
      );
    if (payload.nonce !== undefined) throw refused('this server issues no DPoP nonces');
    const ath = createHash('sha256').update(p.accessToken).digest('base64url');
    if (payload.ath !== ath) throw refused('ath is not the hash of the access token sent');
    if (typeof jti !== 'string' || jti.length === 0) throw refused('no jti');
    const key = createHash('sha256').update(`${p.jkt}\n${jti}`).digest('base64url');
    const until = new Date((iat + DPOP_PROOF_WINDOW_SECONDS) * 1000);
    if (!(await this.seen.firstUse(key, until)))
      throw refused('this proof was already used (jti); make a new proof for every request');
  }
}
