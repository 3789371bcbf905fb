import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Five test tiers, each runnable on its own (`npm run test:<tier>`); `npm test` runs them all.
 *
 * - unit: one class or function, no database, no server (`*.spec.ts` next to the code, and
 *   `test/unit/`).
 * - integration: the production bootstrap in-process over a per-file database
 *   (`test/integration/`, `*.integration.spec.ts` next to the code).
 * - e2e: real MCP clients, or the built server as a child process (`test/e2e/`; needs
 *   `npm run build`).
 * - browser: headless Chromium against the server (`test/e2e/*.browser.e2e-spec.ts`). Nothing in
 *   them depends on the database engine, so CI runs them once, not once per engine.
 * - ops: the deployment and monitoring artefacts proven against the real tools (`test/ops/`:
 *   Kubernetes schemas, promtool, a live Prometheus scraping the built server).
 *
 * A test that cannot run here skips with `skipWhen(reason)` (test/support/skip.ts) and the run
 * ends with the list of skipped tests and their reasons. Shared fixtures live in `test/support/`.
 *
 * Speed (README, "Tests: how long they take"): every test database is a copy of one template
 * migrated once per run (the global setup below), and a built server started on the embedded
 * engine starts from a copy of its data directory; every tier's files share their worker's module
 * cache (`isolate: false`: the app's, Nest's and the SDK clients' imports once per worker, not
 * once per file — the e2e tier's import time fell from 205 s to 33 s, the unit tier's run from 90 s
 * to 13 s; every file still builds its own objects and boots its own servers over its own
 * databases, and none of them mocks a module or changes the environment or a global:
 * test/unit/shared-module-cache.spec.ts keeps it so); and files run two at a time even on 2
 * cores, since most of a file's time is spent waiting on its server and database.
 */
const INTEGRATION = ['test/integration/**/*.spec.ts', '{libs,apps}/**/*.integration.spec.ts'];
const BROWSER = ['test/e2e/**/*.browser.e2e-spec.ts'];

/** One migrated template database per run, copied by every test database (@app/testing). */
const DATABASE_TEMPLATE = ['test/support/database-template.global.ts'];

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    isolate: false,
    maxWorkers: Math.max(2, availableParallelism()),
    // The default reporter only counts skipped tests; this one also lists each with its reason.
    reporters: ['default', './test/support/skip-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['{libs,apps}/**/*.spec.ts', 'test/unit/**/*.spec.ts'],
          exclude: INTEGRATION,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION,
          globalSetup: DATABASE_TEMPLATE,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.e2e-spec.ts'],
          exclude: BROWSER,
          globalSetup: DATABASE_TEMPLATE,
        },
      },
      {
        extends: true,
        test: { name: 'browser', include: BROWSER, globalSetup: DATABASE_TEMPLATE },
      },
      // The ops tier's live Prometheus scrapes a built server: it starts from the template too.
      {
        extends: true,
        test: { name: 'ops', include: ['test/ops/**/*.spec.ts'], globalSetup: DATABASE_TEMPLATE },
      },
    ],
  },
});
