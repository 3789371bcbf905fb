import { Global, Logger, Module, type OnModuleInit } from '@nestjs/common';
import { McpConfirmationsModule, RequestStateCodec } from '@app/mcp-confirmations';
import { MCP_EXTENSIONS } from '@app/mcp-tools';
import { conformanceFixtures } from './fixtures.js';

/**
 * Registers the conformance fixtures into the MCP registries (global, so the tool catalogue and
 * the prompt and resource handlers see {@link MCP_EXTENSIONS}). The server imports this module only
 * when MCP_CONFORMANCE_FIXTURES=true, which the configuration refuses with NODE_ENV=production.
 */
@Global()
@Module({
  imports: [McpConfirmationsModule],
  providers: [
    {
      provide: MCP_EXTENSIONS,
      inject: [RequestStateCodec],
      useFactory: (codec: RequestStateCodec) => [conformanceFixtures(codec)],
    },
  ],
  exports: [MCP_EXTENSIONS],
})
export class McpConformanceFixturesModule implements OnModuleInit {
  onModuleInit(): void {
    new Logger('McpConformanceFixtures').warn(
      'MCP conformance fixtures are registered (test_* tools, prompts, test:// resources): testing only',
    );
  }
}
