/**
 * The testing-only entry to the MCP conformance fixtures. Nothing imports it statically:
 * `startServer` loads it with a dynamic import only when MCP_CONFORMANCE_FIXTURES=true (which the
 * configuration refuses with NODE_ENV=production), and the image's build stage deletes it and the
 * fixtures library, so production neither loads nor ships them.
 */
export { McpConformanceFixturesModule } from '@app/mcp-conformance-fixtures';
