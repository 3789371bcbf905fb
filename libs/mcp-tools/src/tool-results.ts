import type { ErrorEnvelope } from '@app/errors';
import { isFirstRevision } from '@app/mcp-transport';

export type ToolResult = Record<string, unknown> & {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: unknown;
  isError?: boolean;
};

/**
 * `structuredContent` exists from 2025-06-18 on; a 2025-03-26 client gets the text block only
 * (which always carries the same JSON).
 */
export function supportsStructuredContent(protocolVersion: string): boolean {
  return !isFirstRevision(protocolVersion);
}

/** `json`: `value` already serialised (the REST body as sent), so it is not stringified twice. */
export function successResult(value: unknown, protocolVersion: string, json?: string): ToolResult {
  const result: ToolResult = { content: [{ type: 'text', text: json ?? JSON.stringify(value) }] };
  if (supportsStructuredContent(protocolVersion)) result.structuredContent = value;
  return result;
}

/**
 * A failure the caller can act on: `isError` with the API's own envelope as its text. No
 * `structuredContent`: a tool's output schema describes its successful result, and clients
 * validate any structured content against it, error or not (the v1 TypeScript SDK does), which
 * would turn the envelope into a client-side exception the model never sees.
 */
export function errorResult(envelope: ErrorEnvelope): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(envelope) }], isError: true };
}
