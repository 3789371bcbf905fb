import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BearerAuthGuard } from './bearer-auth.guard.js';
import { BearerStrategy } from './bearer.strategy.js';
import { IDENTITY_ENTITIES } from './entities.js';
import { IdentityRepository } from './identity.repository.js';
import { MeController } from './me.controller.js';
import { InternalDispatchRegistry } from './internal-dispatch.registry.js';
import { RequestContext } from './request-context.js';
import { TokensRepository } from './tokens.repository.js';
import { TokensService } from './tokens.service.js';

/** People, organisations, memberships, tokens; bearer authentication; the request's caller. */
@Module({
  imports: [
    PassportModule.register({ session: false }),
    TypeOrmModule.forFeature(IDENTITY_ENTITIES),
  ],
  controllers: [MeController],
  providers: [
    BearerStrategy,
    BearerAuthGuard,
    IdentityRepository,
    InternalDispatchRegistry,
    RequestContext,
    TokensRepository,
    TokensService,
  ],
  exports: [
    BearerAuthGuard,
    IdentityRepository,
    InternalDispatchRegistry,
    RequestContext,
    TokensService,
  ],
})
export class IdentityModule {}
