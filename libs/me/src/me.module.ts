import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { MeController } from './me.controller.js';

/** `GET /v1/me`: who is calling (person, organisation, token, membership, channel). */
@Module({
  imports: [IdentityModule],
  controllers: [MeController],
})
export class MeModule {}
