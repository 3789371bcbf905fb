import type { EndpointContract } from '@app/rest-contract';

export type HttpMethod = EndpointContract['method'];

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * How a tool asks the person (or an approver): what it acts on and how to name it in the question.
 * A destructive tool always asks (its policy defaults to `form`); a write tool with a spec asks
 * only when its organisation set a policy for it (its default is `none`).
 */
export interface ConfirmationSpec {
  targetType: 'portal_user' | 'account';
  /**
   * The GET endpoint reading the target (the question names it; a missing one is a 404). None for
   * a tool that creates its target: the question reads the arguments, the target id is `new`.
   */
  lookup?: EndpointContract;
  /**
   * The question, from the record as the REST API returns it (the arguments for a tool without a
   * lookup) and the call's arguments; `clean` sanitises every interpolation.
   */
  question(
    record: Record<string, unknown>,
    clean: (value: unknown) => string,
    args: Record<string, unknown>,
  ): string;
}

/**
 * One MCP tool: declared once, dispatched to one REST endpoint. Its input schema is generated from
 * the DTOs the endpoint validates with, its output schema from the endpoint's response DTO.
 */
export interface ToolDefinition {
  name: string;
  /** Written for a model: what it does, when to use it, what it returns. */
  description: string;
  annotations: ToolAnnotations;
  /** The REST endpoint it dispatches to: its access requirement is the tool's. */
  endpoint: EndpointContract;
  /**
   * The tool whose result this tool's result has the shape of (same response DTO): only that tool
   * carries the output schema in `tools/list`, and this tool's description names it.
   */
  resultLike?: string;
  confirmation?: ConfirmationSpec;
}
