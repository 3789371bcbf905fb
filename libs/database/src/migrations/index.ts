import { Identity1764700000000 } from './1764700000000-identity.js';
import { RateLimits1764700050000 } from './1764700050000-rate-limits.js';

/**
 * Every migration, in order. Raw SQL with exact `down`s; `synchronize` is never used.
 * Add new ones at the end (timestamps in their names keep the order obvious).
 */
export const MIGRATIONS = [Identity1764700000000, RateLimits1764700050000];
