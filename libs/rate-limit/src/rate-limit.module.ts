import { Global, Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { MetricsModule } from '@app/metrics';
import { TokenRateLimitGuard } from './rate-limit.guard.js';
import { RateLimitService } from './rate-limit.service.js';

/** Global for the guards; also imported where a quota is spent outside the server (the admin command). */
@Global()
@Module({
  imports: [IdentityModule, MetricsModule],
  providers: [RateLimitService, TokenRateLimitGuard],
  exports: [RateLimitService, TokenRateLimitGuard],
})
export class RateLimitModule {}
