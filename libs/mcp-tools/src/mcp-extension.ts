import type { AccessRequirement } from '@app/access-vocabulary';
import type { McpHandlerOutcome, McpRequestContext } from '@app/mcp-transport';
import type { JsonSchema } from './json-schema.factory.js';
import type { McpCallExtra } from './mcp-call-extra.js';
import type { ToolAnnotations } from './tool-definition.js';

/**
 * Tools, prompts and resources that are not REST endpoints, added to the same registries by a
 * module that provides {@link MCP_EXTENSIONS} (the conformance fixtures do; production registers
 * none). They go through the same paths as ours: the executor (declared argument names, the four
 * authorization checks, call history, metrics), the prompt and resource handlers (argument checks,
 * authorization), MRTR and the transport's request channel (progress, logging, client requests).
 */
export const MCP_EXTENSIONS = Symbol('MCP_EXTENSIONS');

export interface ExtensionTool {
  name: string;
  title: string;
  /** Written for a model: what it does. */
  description: string;
  /** A root `type: "object"` schema; its `properties` are the only argument names accepted. */
  inputSchema: JsonSchema;
  annotations: ToolAnnotations;
  /** What the token needs (`{}`: any active member's token). */
  access: AccessRequirement;
  /**
   * The tasks extension: `optional` — a client that declares it gets a task, any other the result
   * at once; `required` — only as a task (others: -32021). Absent: never a task.
   */
  taskSupport?: 'optional' | 'required';
  /**
   * A task tool's synchronous first rounds (2026-07-28 MRTR): an outcome to answer before any task
   * exists (e.g. `input_required`), or undefined to create the task now.
   */
  beforeTask?(
    args: Record<string, unknown>,
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<McpHandlerOutcome | undefined>;
  /**
   * Runs the call: a `CallToolResult`, or (2026-07-28) `input_required`. In a task it runs on the
   * replica that created (or resumed) it, after the answer was sent: `ctx.channel` streams nothing
   * and its `signal` aborts when the task is cancelled; `params.inputResponses` holds every answer
   * the task received, and `input_required` parks the task until the client answers.
   */
  run(
    args: Record<string, unknown>,
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<McpHandlerOutcome>;
}

export interface ExtensionPrompt {
  name: string;
  title: string;
  description: string;
  arguments: readonly { name: string; description: string; required: boolean }[];
  access: AccessRequirement;
  /** A `GetPromptResult`, or (2026-07-28) `input_required`. Arguments are checked already. */
  get(
    args: Readonly<Record<string, string>>,
    params: Record<string, unknown>,
    ctx: McpRequestContext,
  ): Promise<McpHandlerOutcome>;
  /** Suggestions for one argument (`completion/complete`), at most 100. */
  complete?(argument: string, value: string): readonly string[];
}

export interface ExtensionResource {
  /** A fixed URI, or an RFC 6570 level-1 template (`{name}` variables). */
  uri?: string;
  uriTemplate?: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  access: AccessRequirement;
  /** The `contents` of a read; `vars` holds the template's variables (empty for a fixed URI). */
  read(uri: string, vars: Readonly<Record<string, string>>): Promise<Record<string, unknown>[]>;
}

export interface McpExtension {
  tools?: readonly ExtensionTool[];
  prompts?: readonly ExtensionPrompt[];
  resources?: readonly ExtensionResource[];
}

/** The variables of `uri` under a level-1 template, or undefined when it does not match. */
export function matchUriTemplate(
  template: string,
  uri: string,
): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template
    .split(/(\{\w+\})/)
    .map((part) => {
      const variable = /^\{(\w+)\}$/.exec(part);
      if (variable === null) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(variable[1]);
      return '([^/?#]+)';
    })
    .join('');
  const match = new RegExp(`^${pattern}$`).exec(uri);
  if (match === null) return undefined;
  try {
    return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1])]));
  } catch {
    return undefined; // a malformed %-escape names nothing
  }
}
