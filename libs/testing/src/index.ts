export { createTestDatabase, type TestDatabase } from './test-database.js';
export { testPrincipal, testRequestContext } from './fixtures.js';
