import { isJsonObject } from '@app/common';
import type { ExtensionTool } from '@app/mcp-tools';
import type { McpHandlerOutcome } from '@app/mcp-transport';
import type { ClientInput, InputRequest } from './client-input.js';

// What every kind of fixture is built from: sample content, the read-only annotations, and the
// requests a fixture sends the client.

/** A 1×1 red PNG. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A minimal WAV header with two bytes of silence. */
export const WAV_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
/** Between progress or log messages: long enough for a client to see them arrive one by one. */
export const STEP_MS = 50;
export const META_FIELD = '_meta';

export const ANY_MEMBER = {};
export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
export const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false };

export const text = (value: string) => ({ type: 'text', text: value });
export const done = (...content: Record<string, unknown>[]): McpHandlerOutcome => ({
  kind: 'complete',
  result: { content },
});
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type Run = ExtensionTool['run'];

export function tool(
  name: string,
  description: string,
  run: Run,
  inputSchema: Record<string, unknown> = NO_ARGUMENTS,
): ExtensionTool {
  return {
    name,
    title: name,
    description,
    inputSchema,
    annotations: { title: name, ...READ_ONLY },
    access: ANY_MEMBER,
    run,
  };
}

export const elicit = (
  message: string,
  properties: Record<string, unknown>,
  required: string[],
) => ({
  method: 'elicitation/create' as const,
  params: { message, requestedSchema: { type: 'object', properties, required } },
});
export const sample = (prompt: string, maxTokens: number) => ({
  method: 'sampling/createMessage' as const,
  params: { messages: [{ role: 'user', content: text(prompt) }], maxTokens },
});
export const ROOTS: InputRequest = { method: 'roots/list', params: {} };

/** What a client answered, as the fixtures echo it. */
export function describeAnswer(answer: Record<string, unknown>): string {
  if (typeof answer.error === 'string') return `not supported or error: ${answer.error}`;
  if (typeof answer.action === 'string')
    return `action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  if (isJsonObject(answer.content) && typeof answer.content.text === 'string')
    return answer.content.text;
  if (Array.isArray(answer.roots))
    return answer.roots
      .map((r) => (isJsonObject(r) && typeof r.uri === 'string' ? r.uri : '?'))
      .join(', ');
  return JSON.stringify(answer);
}

export function contentString(answer: Record<string, unknown> | undefined, field: string): string {
  const content = answer?.content;
  return isJsonObject(content) && typeof content[field] === 'string' ? content[field] : '(none)';
}

export function argString(args: Record<string, unknown>, name: string, fallback: string): string {
  const value = args[name];
  return typeof value === 'string' ? value : fallback;
}

/** A tool that asks the client something once and reports the answer. */
export function askingTool(
  input: ClientInput,
  name: string,
  description: string,
  requests: (args: Record<string, unknown>) => Record<string, InputRequest>,
  report: (answers: Record<string, Record<string, unknown>>) => string,
  inputSchema?: Record<string, unknown>,
): ExtensionTool {
  return tool(
    name,
    description,
    async (args, params, ctx) => {
      const got = await input.gather(requests(args), params, ctx);
      return 'outcome' in got ? got.outcome : done(text(report(got.answers)));
    },
    inputSchema,
  );
}
