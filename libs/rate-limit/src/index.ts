export { RateLimitModule } from './rate-limit.module.js';
export { RateLimitService, type RateLimitDecision } from './rate-limit.service.js';
export { TokenRateLimitGuard, rateLimited } from './rate-limit.guard.js';
export { registerIpRateLimit } from './ip-rate-limit.hook.js';
