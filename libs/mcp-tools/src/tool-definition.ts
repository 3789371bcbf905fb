import type { EndpointContract } from '@app/rest-contract';

export type HttpMethod = EndpointContract['method'];

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** How a destructive tool asks the person: what it acts on and how to name it in the question. */
export interface ConfirmationSpec {
  targetType: 'portal_user' | 'account';
  /** The GET endpoint reading the target (the question names it; a missing one is a 404). */
  lookup: EndpointContract;
  /** The question, from the record as the REST API returns it; `clean` sanitises interpolations. */
  question(record: Record<string, unknown>, clean: (value: unknown) => string): string;
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
