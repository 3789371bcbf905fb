export { McpConformanceFixturesModule } from './mcp-conformance-fixtures.module.js';
export { conformanceFixtures } from './fixtures.js';
export { ClientInput, type InputRequest } from './client-input.js';
