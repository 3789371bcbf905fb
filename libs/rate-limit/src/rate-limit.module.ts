import { Global, Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { TokenRateLimitGuard } from './rate-limit.guard.js';
import { RateLimitService } from './rate-limit.service.js';

@Global()
@Module({
  imports: [IdentityModule],
  providers: [RateLimitService, TokenRateLimitGuard],
  exports: [RateLimitService, TokenRateLimitGuard],
})
export class RateLimitModule {}
