import { defineConfig } from 'vitest/config';

/**
 * Four test tiers, each runnable on its own (`npm run test:<tier>`); `npm test` runs them all.
 *
 * - unit: one class or function, no database, no server (`*.spec.ts` next to the code, and
 *   `test/unit/`).
 * - integration: the production bootstrap in-process over a per-file database
 *   (`test/integration/`, `*.integration.spec.ts` next to the code).
 * - e2e: real MCP clients, or the built server as a child process (`test/e2e/`; needs
 *   `npm run build`).
 * - ops: the deployment and monitoring artefacts proven against the real tools (`test/ops/`:
 *   Kubernetes schemas, promtool, a live Prometheus scraping the built server). Files that need
 *   `promtool`/`prometheus` skip with a message saying so when they are not installed.
 *
 * Shared fixtures live in `test/support/`.
 */
const INTEGRATION = ['test/integration/**/*.spec.ts', '{libs,apps}/**/*.integration.spec.ts'];

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['{libs,apps}/**/*.spec.ts', 'test/unit/**/*.spec.ts'],
          exclude: INTEGRATION,
        },
      },
      { extends: true, test: { name: 'integration', include: INTEGRATION } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.e2e-spec.ts'] } },
      { extends: true, test: { name: 'ops', include: ['test/ops/**/*.spec.ts'] } },
    ],
  },
});
