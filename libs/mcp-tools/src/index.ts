export { McpToolsModule } from './mcp-tools.module.js';
export { McpEndpointParts } from './mcp-endpoint-parts.js';
export { clientNameOf, type McpCallExtra } from './mcp-call-extra.js';
export { RestDispatcher, type RestResponse } from './rest-dispatcher.js';
export { ToolCatalog, compileTool, pathParamsOf, type CompiledTool } from './tool-catalog.js';
export { ToolExecutor } from './tool-executor.js';
export { declaresFormElicitation } from './destructive-tool.gate.js';
export {
  errorResult,
  successResult,
  supportsStructuredContent,
  type ToolResult,
} from './tool-results.js';
export type { ToolDefinition, ToolAnnotations } from './tool-definition.js';
export { schemaOfDto, type JsonSchema } from './json-schema.factory.js';
export { TOOLS } from './tools.js';
export { AUTHORIZATION_REFUSED } from './mcp-refusals.js';
export {
  assertFirstPage,
  ORGANIZATION_URI,
  ResourcesHandler,
  STATIC_LIST_CACHE,
} from './resources.handler.js';
export { PromptsHandler } from './prompts.handler.js';
export { CompletionsHandler } from './completions.handler.js';
export { TasksHandler } from './tasks.handler.js';
export { APPROVAL_TASK_FAILED } from './mcp-refusals.js';
export {
  MCP_EXTENSIONS,
  matchUriTemplate,
  type ExtensionPrompt,
  type ExtensionResource,
  type ExtensionTool,
  type McpExtension,
} from './mcp-extension.js';
