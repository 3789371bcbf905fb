import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { BearerAuthGuard } from './bearer-auth.guard.js';
import { BearerStrategy } from './bearer.strategy.js';
import { DpopProofsRepository } from './dpop-proofs.repository.js';
import { DpopProofVerifier } from './dpop-proof.verifier.js';
import { IdentityRepository } from './identity.repository.js';
import { MembershipsRepository } from './memberships.repository.js';
import { PrincipalCache } from './principal-cache.js';
import { RequestContext } from './request-context.js';
import { TokensRepository } from './tokens.repository.js';
import { TokensService } from './tokens.service.js';

/** What other libraries inject. */
const EXPORTED = [
  BearerAuthGuard,
  IdentityRepository,
  MembershipsRepository,
  PrincipalCache,
  RequestContext,
  TokensRepository,
  TokensService,
];

/** People, organisations, memberships, tokens; bearer authentication; the request's caller. */
@Module({
  imports: [PassportModule.register({ session: false })],
  // Passport's bearer strategy and the DPoP proof check serve only the guard.
  providers: [BearerStrategy, DpopProofsRepository, DpopProofVerifier, ...EXPORTED],
  exports: EXPORTED,
})
export class IdentityModule {}
