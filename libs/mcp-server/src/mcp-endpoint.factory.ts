import { Logger, type FactoryProvider } from '@nestjs/common';
import { AppConfig, serverSecretKeys } from '@app/config';
import {
  McpEndpointService,
  McpSessionIdCodec,
  TASKS_EXTENSION,
  type McpCacheHint,
  type McpServerCapabilities,
  type McpSessionIds,
} from '@app/mcp-transport';
import {
  assertFirstPage,
  McpEndpointParts,
  STATIC_LIST_CACHE,
  type McpCallExtra,
} from '@app/mcp-tools';
import { MCP_SERVER_INSTRUCTIONS } from './mcp-server.instructions.js';
import { McpRequestMetrics } from './mcp-request.metrics.js';
import { McpTracing } from './mcp-tracing.js';
import { tracingActive } from '@app/tracing';
import { readServerVersion } from '@app/common';

export const MCP_SERVER_NAME = 'platform-mcp';
export const MCP_SERVER_TITLE = 'Platform';

/**
 * Legacy advertises `logging` because 2025 clients may call `logging/setLevel` (the endpoint
 * answers it; we emit no log notifications). 2026-07-28 deprecates logging, so modern does not.
 * `completions` (argument completion for prompts and resource templates) exists in every revision
 * we speak (since 2025-03-26), so both eras advertise it. Neither advertises
 * `listChanged`/`subscribe`: the set never changes at run time and the stateless transport has no
 * stream to announce it on. 2026-07-28 advertises the tasks extension (`docs/adr/0013`): a call
 * waiting for an admin's approval is a task for a client that declares it.
 */
export const MCP_CAPABILITIES: { legacy: McpServerCapabilities; modern: McpServerCapabilities } = {
  legacy: { tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} },
  modern: {
    tools: {},
    resources: {},
    prompts: {},
    completions: {},
    extensions: { [TASKS_EXTENSION]: {} },
  },
};

/**
 * `tools/list` is the same for every token (every tool is listed for everyone, so a model learns
 * what exists; the call-time checks say what is missing and who can fix it), and changes only with a deployment, so it may be shared
 * across authorization contexts for five minutes, like the catalogue's other lists.
 */
export const TOOLS_LIST_CACHE: McpCacheHint = STATIC_LIST_CACHE;

export interface McpEndpointDependencies {
  parts: McpEndpointParts;
  requestMetrics: McpRequestMetrics;
  logger: Pick<Logger, 'error'>;
  version: string;
  /** 2025-era session ids carrying `clientInfo` (absent: none are issued). */
  sessionIds?: McpSessionIds;
  /** One span per message (absent: tracing is off). */
  tracing?: McpTracing;
}

/** The one MCP endpoint: server identity, capabilities, and the `method → handler` map. */
export function createMcpEndpoint(deps: McpEndpointDependencies): McpEndpointService<McpCallExtra> {
  const { catalog, executor, resources, prompts, completions, tasks } = deps.parts;
  const { tracing } = deps;
  return new McpEndpointService<McpCallExtra>({
    serverInfo: { name: MCP_SERVER_NAME, version: deps.version, title: MCP_SERVER_TITLE },
    instructions: MCP_SERVER_INSTRUCTIONS,
    capabilities: MCP_CAPABILITIES,
    sessionIds: deps.sessionIds,
    handlers: {
      'tools/list': async (params, ctx) => {
        assertFirstPage(params);
        return {
          kind: 'complete',
          // One frozen result per revision for everyone: its JSON is rendered once and reused.
          result: catalog.listResult(ctx.protocolVersion),
          cache: TOOLS_LIST_CACHE,
        };
      },
      'tools/call': (params, ctx, extra) => executor.call(params, ctx, extra),
      'resources/list': (params, ctx) => resources.list(params, ctx),
      'resources/templates/list': (params, ctx) => resources.listTemplates(params, ctx),
      'resources/read': (params, ctx, extra) => resources.read(params, ctx, extra),
      'prompts/list': (params, ctx) => prompts.list(params, ctx),
      'prompts/get': (params, ctx, extra) => prompts.get(params, ctx, extra),
      'completion/complete': (params, ctx, extra) => completions.complete(params, ctx, extra),
      'tasks/get': (params, ctx, extra) => tasks.get(params, ctx, extra),
      'tasks/update': (params, ctx, extra) => tasks.update(params, ctx, extra),
      'tasks/cancel': (params, ctx, extra) => tasks.cancel(params, ctx, extra),
    },
    onInternalError: (error, ctx, extra) => {
      deps.logger.error(
        {
          err: error,
          requestId: extra.requestId,
          method: ctx.method,
          era: ctx.era,
          protocolVersion: ctx.protocolVersion,
        },
        'MCP request failed unexpectedly',
      );
    },
    observe: (event) => deps.requestMetrics.observe(event),
    traceMessage: tracing === undefined ? undefined : (message) => tracing.start(message),
    // Answers to server→client requests, and the 2025 log level, belong to the token that asked.
    ownerOf: (extra) => extra.principal.tokenId,
    paramHeadersOf: (name) => catalog.paramHeaders(name),
  });
}

export const mcpEndpointProvider: FactoryProvider<McpEndpointService<McpCallExtra>> = {
  provide: McpEndpointService,
  inject: [McpEndpointParts, McpRequestMetrics, AppConfig],
  useFactory: (parts: McpEndpointParts, requestMetrics: McpRequestMetrics, config: AppConfig) =>
    createMcpEndpoint({
      parts,
      requestMetrics,
      logger: new Logger('McpEndpoint'),
      version: readServerVersion(),
      // The same secrets as confirmations (every replica shares them), under a key of its own.
      sessionIds: new McpSessionIdCodec(serverSecretKeys(config)),
      tracing: tracingActive()
        ? new McpTracing(
            (name) =>
              parts.catalog.get(name) !== undefined || parts.catalog.extension(name) !== undefined,
          )
        : undefined,
    }),
};
