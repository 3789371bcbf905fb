import { Injectable } from '@nestjs/common';
import { CompletionsHandler } from './completions.handler.js';
import { PromptsHandler } from './prompts.handler.js';
import { ResourcesHandler } from './resources.handler.js';
import { TasksHandler } from './tasks.handler.js';
import { ToolCatalog } from './tool-catalog.js';
import { ToolExecutor } from './tool-executor.js';

/**
 * What the MCP endpoint is built from: the catalogue, the executor and the method handlers, named
 * once here (in the one spelling Nest's injection has), so the endpoint's provider injects this
 * and `McpToolsModule` exports this rather than each listing them again.
 */
@Injectable()
export class McpEndpointParts {
  constructor(
    readonly catalog: ToolCatalog,
    readonly executor: ToolExecutor,
    readonly resources: ResourcesHandler,
    readonly prompts: PromptsHandler,
    readonly completions: CompletionsHandler,
    readonly tasks: TasksHandler,
  ) {}
}
