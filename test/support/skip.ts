import type { TestOptions } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** Why the test did not run here (set by {@link skipWhen}; printed by skip-reporter.ts). */
    skipReason?: string;
  }
}

/**
 * Options for a `describe` or `it` that cannot run on this machine or engine: skipped, with the
 * reason in the run's output (test/support/skip-reporter.ts lists every skipped test and why).
 * `reason` is why not, or `undefined`/`false`/`''` when the tests can run. The one way tests skip
 * (test/unit/test-skips.spec.ts refuses `.skip`, `.skipIf` and `.runIf`); a test that finds out
 * only while running says why with `context.skip(reason)`.
 *
 * @example describe('Redis stops answering', skipWhen(REDIS_SERVER_MISSING), () => { … })
 */
export function skipWhen(reason: string | false | undefined): TestOptions {
  return reason === undefined || reason === false || reason === ''
    ? {}
    : { skip: true, meta: { skipReason: reason } };
}

/** The reason for the tests that need real Postgres (`DATABASE_URL`), else `undefined`. */
export const NEEDS_REAL_POSTGRES: string | undefined =
  process.env.DATABASE_URL === undefined || process.env.DATABASE_URL === ''
    ? 'needs real Postgres: set DATABASE_URL (CI runs every database tier on both engines)'
    : undefined;
