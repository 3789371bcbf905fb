export {
  createTestDatabase,
  prepareTestDatabaseTemplate,
  TEST_DATABASE_TEMPLATE,
  type TestDatabase,
} from './test-database.js';
export { testPrincipal, testRequestContext } from './fixtures.js';
