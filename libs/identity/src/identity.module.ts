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

/** People, organisations, memberships, tokens; bearer authentication; the request's caller. */
@Module({
  imports: [PassportModule.register({ session: false })],
  providers: [
    BearerStrategy,
    BearerAuthGuard,
    DpopProofsRepository,
    DpopProofVerifier,
    IdentityRepository,
    MembershipsRepository,
    PrincipalCache,
    RequestContext,
    TokensRepository,
    TokensService,
  ],
  exports: [
    BearerAuthGuard,
    IdentityRepository,
    MembershipsRepository,
    PrincipalCache,
    RequestContext,
    TokensRepository,
    TokensService,
  ],
})
export class IdentityModule {}
