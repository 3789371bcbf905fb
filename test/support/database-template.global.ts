import { prepareTestDatabaseTemplate } from '@app/testing';

/**
 * Vitest global setup of the tiers that make databases: one migrated template for the whole run,
 * copied by every `createTestDatabase` (see `prepareTestDatabaseTemplate`).
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  return prepareTestDatabaseTemplate();
}
