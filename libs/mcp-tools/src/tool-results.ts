import type { ErrorEnvelope } from '@app/errors';

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
  return protocolVersion !== '2025-03-26';
}

/** `json`: `value` already serialised (the REST body as sent), so it is not stringified twice. */
export function successResult(value: unknown, protocolVersion: string, json?: string): ToolResult {
  const result: ToolResult = { content: [{ type: 'text', text: json ?? JSON.stringify(value) }] };
  if (supportsStructuredContent(protocolVersion)) result.structuredContent = value;
  return result;
}

/** A failure the caller can act on: `isError` with the API's own envelope, as text and structured. */
export function errorResult(envelope: ErrorEnvelope, protocolVersion: string): ToolResult {
  const result: ToolResult = {
    content: [{ type: 'text', text: JSON.stringify(envelope) }],
    isError: true,
  };
  if (supportsStructuredContent(protocolVersion)) result.structuredContent = envelope;
  return result;
}
