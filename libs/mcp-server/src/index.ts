export { McpServerModule } from './mcp-server.module.js';
export {
  createMcpEndpoint,
  MCP_CAPABILITIES,
  MCP_SERVER_NAME,
  MCP_SERVER_TITLE,
  TOOLS_LIST_CACHE,
} from './mcp-endpoint.factory.js';
export { MCP_SERVER_INSTRUCTIONS } from './mcp-server.instructions.js';
export { mcpTransportErrorBody, wwwAuthenticateChallenge } from './transport-answers.js';
export {
  evaluateRequest,
  gatePolicyOf,
  requestGate,
  type GatePolicy,
  type GateRequest,
  type GateVerdict,
} from './request-gate.js';
export { isMcpRequest, normalisedPath } from './mcp-request.js';
export type { ProtectedResourceMetadata } from './protected-resource-metadata.controller.js';
export {
  noteTransportRejection,
  registerMcpRejectionMetrics,
  rejectionReasonOf,
} from './mcp-rejection.metrics.js';
