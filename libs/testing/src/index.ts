export {
  createTestDatabase,
  prepareTestDatabaseTemplate,
  TEST_DATABASE_TEMPLATE,
  TEST_EMBEDDED_DATA_DIR,
  type TestDatabase,
} from './test-database.js';
export {
  completeResult,
  mcpErrorOf,
  testAccessPolicy,
  testApproval,
  testMcpCaller,
  testPrincipal,
  testRequestContext,
} from './fixtures.js';
