import { Identity1764700000000 } from './1764700000000-identity.js';

/**
 * Every migration, in order. Raw SQL with exact `down`s; `synchronize` is never used.
 * Add new ones at the end (timestamps in their names keep the order obvious).
 */
export const MIGRATIONS = [Identity1764700000000];
