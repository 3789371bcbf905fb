import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { McpToolsModule } from '@app/mcp-tools';
import { mcpEndpointProvider } from './mcp-endpoint.factory.js';
import { McpController } from './mcp.controller.js';
import { McpRequestMetrics } from './mcp-request.metrics.js';
import { ProtectedResourceMetadataController } from './protected-resource-metadata.controller.js';

/**
 * The MCP server: `POST /mcp` over one `McpEndpointService` (tools, resources, prompts from
 * `@app/mcp-tools`), its OAuth protected-resource metadata, and the endpoint's metrics. Needs the
 * global `MetricsModule` and `ConfigModule`; the request gate (Host on every route, Origin on `/mcp`) is added by
 * `createFastifyAdapter` through {@link requestGate}.
 */
@Module({
  imports: [IdentityModule, McpToolsModule],
  controllers: [McpController, ProtectedResourceMetadataController],
  providers: [mcpEndpointProvider, McpRequestMetrics],
})
export class McpServerModule {}
