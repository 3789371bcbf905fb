export { RateLimitModule } from './rate-limit.module.js';
export { RateLimitService, type Quota, type RateLimitDecision } from './rate-limit.service.js';
export { TokenRateLimitGuard, rateLimited } from './rate-limit.guard.js';
export { ipRateLimitHook } from './ip-rate-limit.hook.js';
