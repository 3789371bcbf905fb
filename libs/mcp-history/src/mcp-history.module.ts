import { Module } from '@nestjs/common';
import { AuditTrailModule } from '@app/audit-trail';
import { IdentityModule } from '@app/identity';
import { McpConfirmationsModule } from '@app/mcp-confirmations';
import { McpHistoryController } from './mcp-history.controller.js';
import { McpHistoryService } from './mcp-history.service.js';
import { ToolCallHistory } from './tool-call.history.js';
import { ToolCallsRepository } from './tool-calls.repository.js';

/**
 * The MCP call history: {@link ToolCallHistory} (the writer the tool executor calls) and the admin
 * queries `GET /v1/mcp/tool-calls[/{id}]` and `GET /v1/mcp/confirmations[/{id}]` (`audit.read`).
 */
@Module({
  imports: [AuditTrailModule, IdentityModule, McpConfirmationsModule],
  controllers: [McpHistoryController],
  providers: [ToolCallHistory, ToolCallsRepository, McpHistoryService],
  exports: [ToolCallHistory],
})
export class McpHistoryModule {}
