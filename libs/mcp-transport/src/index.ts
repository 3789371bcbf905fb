export { McpEndpointService } from './mcp-endpoint.service.js';
export { McpError } from './mcp.error.js';
export { acceptsEventStream, decodeHeaderValue, isAcceptable } from './http-headers.util.js';
export { ClientRequestFailed, PendingClientRequests } from './pending-client-requests.js';
export { headerMatchesValue, paramHeadersOf, type ParamHeader } from './param-headers.js';
export {
  detachedChannel,
  LOGGING_LEVEL_ORDER,
  type LoggingLevel,
  type McpRequestChannel,
} from './request-channel.js';
export {
  declaresExtension,
  ERA_LABELS,
  eraLabel,
  HEADER_MISMATCH,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isFirstRevision,
  LEGACY_PROTOCOL_VERSIONS,
  META_FIELD,
  METHOD_NOT_FOUND,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  MODERN_PROTOCOL_VERSIONS,
  PARSE_ERROR,
  RESOURCE_NOT_FOUND_LEGACY,
  SUPPORTED_PROTOCOL_VERSIONS,
  TASKS_EXTENSION,
  UNSUPPORTED_PROTOCOL_VERSION,
  URL_ELICITATION_REQUIRED,
  type EraLabel,
  type HandledMethod,
  type LegacyProtocolVersion,
  type ModernProtocolVersion,
  type SupportedProtocolVersion,
} from './mcp-protocol.constants.js';
export type {
  CacheScope,
  Era,
  JsonRpcId,
  McpCacheHint,
  McpClientInfo,
  McpEndpointOptions,
  McpHandlerMap,
  McpHandlerOutcome,
  McpHttpRequest,
  McpHttpResponse,
  McpMessageScope,
  McpMessageStart,
  McpMethodHandler,
  McpObservation,
  McpOutcomeLabel,
  McpRequestContext,
  McpResponseStream,
  McpServerCapabilities,
  McpServerInfo,
} from './mcp-endpoint.types.js';
export { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
export {
  isErrorResultStatus,
  RPC_ERROR_PREFIX,
  rpcErrorCodeOf,
  rpcErrorStatus,
  TOOL_CALL_REFUSAL_STATUSES,
  TOOL_CALL_SUCCESS_STATUSES,
  UNCODED_TOOL_ERROR,
  type RpcErrorStatus,
  type ToolCallStatus,
} from './tool-call-status.js';
export { userAgentProduct } from './client-string.util.js';
export {
  MAX_SESSION_ID_LENGTH,
  McpSessionIdCodec,
  type McpSession,
  type McpSessionIds,
} from './session-id.codec.js';
