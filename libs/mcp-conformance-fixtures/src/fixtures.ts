import type { RequestStateCodec } from '@app/mcp-confirmations';
import type { McpExtension } from '@app/mcp-tools';
import { ClientInput } from './client-input.js';
import { clientInputTools } from './client-input-tools.js';
import { contentTools } from './content-tools.js';
import { prompts } from './prompts.js';
import { resources } from './resources.js';
import { taskTools } from './task-tools.js';

/**
 * The MCP conformance suite's fixtures (the tools, prompts and resources its scenarios drive by
 * name), as an extension of our own registries: testing only (MCP_CONFORMANCE_FIXTURES).
 */
export function conformanceFixtures(codec: RequestStateCodec): McpExtension {
  const input = new ClientInput(codec);
  return {
    tools: [...contentTools(), ...clientInputTools(input), ...taskTools(input)],
    prompts: prompts(input),
    resources: resources(),
  };
}
