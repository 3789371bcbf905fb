import { Module } from '@nestjs/common';
import { ApprovalRequestsModule } from '@app/approvals';
import { AuditTrailModule } from '@app/audit-trail';
import { IdentityModule } from '@app/identity';
import { McpConfirmationsModule } from '@app/mcp-confirmations';
import { McpHistoryController } from './mcp-history.controller.js';
import { McpHistoryService } from './mcp-history.service.js';
import { ToolCallsRepository } from './tool-calls.repository.js';

/**
 * The admin API of the MCP history: `GET /v1/mcp/tool-calls[/{id}]` and
 * `GET /v1/mcp/confirmations[/{id}]` (`audit.read`). The rows are written by
 * {@link ToolCallHistoryModule}'s writer, which the tool executor imports instead of this.
 */
@Module({
  imports: [ApprovalRequestsModule, AuditTrailModule, IdentityModule, McpConfirmationsModule],
  controllers: [McpHistoryController],
  providers: [ToolCallsRepository, McpHistoryService],
})
export class McpHistoryModule {}
