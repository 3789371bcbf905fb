import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AccessModule } from '@app/access';
import { ApprovalRequestsModule } from '@app/approvals';
import { ConfirmationPolicyReaderModule } from '@app/confirmation-policies';
import { IdentityModule } from '@app/identity';
import { McpConfirmationsModule } from '@app/mcp-confirmations';
import { ToolCallHistoryModule } from '@app/mcp-history';
import { McpTasksModule } from '@app/mcp-tasks';
import { CompletionsHandler } from './completions.handler.js';
import { DestructiveToolGate } from './destructive-tool.gate.js';
import { McpEndpointParts } from './mcp-endpoint-parts.js';
import { PromptsHandler } from './prompts.handler.js';
import { ResourcesHandler } from './resources.handler.js';
import { TaskRunner } from './task-runner.js';
import { TasksHandler } from './tasks.handler.js';
import { RestDispatcher } from './rest-dispatcher.js';
import { ToolCallObserver } from './tool-call.observer.js';
import { ToolCatalog } from './tool-catalog.js';
import { ToolExecutor } from './tool-executor.js';

/**
 * What other modules inject: the dispatcher, the catalogue (the request metrics name tools by it)
 * and what the MCP endpoint is built from.
 */
const EXPORTED = [RestDispatcher, ToolCatalog, McpEndpointParts];

/**
 * The MCP tools: registry, the one executor, in-process REST dispatch, confirmation gate, and the
 * tasks extension's methods.
 */
@Module({
  imports: [
    DiscoveryModule,
    IdentityModule,
    AccessModule,
    McpConfirmationsModule,
    ToolCallHistoryModule,
    ConfirmationPolicyReaderModule,
    ApprovalRequestsModule,
    McpTasksModule,
  ],
  providers: [
    ...EXPORTED,
    ToolExecutor,
    ResourcesHandler,
    PromptsHandler,
    CompletionsHandler,
    TasksHandler,
    DestructiveToolGate,
    ToolCallObserver,
    TaskRunner,
  ],
  exports: EXPORTED,
})
export class McpToolsModule {}
