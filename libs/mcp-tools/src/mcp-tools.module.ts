import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AccessModule } from '@app/access';
import { ApprovalRequestsModule } from '@app/approvals';
import { ConfirmationPolicyReaderModule } from '@app/confirmation-policies';
import { IdentityModule } from '@app/identity';
import { McpConfirmationsModule } from '@app/mcp-confirmations';
import { ToolCallHistoryModule } from '@app/mcp-history';
import { CompletionsHandler } from './completions.handler.js';
import { DestructiveToolGate } from './destructive-tool.gate.js';
import { PromptsHandler } from './prompts.handler.js';
import { ResourcesHandler } from './resources.handler.js';
import { RestDispatcher } from './rest-dispatcher.js';
import { ToolCallObserver } from './tool-call.observer.js';
import { ToolCatalog } from './tool-catalog.js';
import { ToolExecutor } from './tool-executor.js';

/** The MCP tools: registry, the one executor, in-process REST dispatch, confirmation gate. */
@Module({
  imports: [
    DiscoveryModule,
    IdentityModule,
    AccessModule,
    McpConfirmationsModule,
    ToolCallHistoryModule,
    ConfirmationPolicyReaderModule,
    ApprovalRequestsModule,
  ],
  providers: [
    RestDispatcher,
    ToolCatalog,
    ToolExecutor,
    DestructiveToolGate,
    ToolCallObserver,
    ResourcesHandler,
    PromptsHandler,
    CompletionsHandler,
  ],
  exports: [
    RestDispatcher,
    ToolCatalog,
    ToolExecutor,
    ResourcesHandler,
    PromptsHandler,
    CompletionsHandler,
  ],
})
export class McpToolsModule {}
