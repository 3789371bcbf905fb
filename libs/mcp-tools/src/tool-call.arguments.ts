import { isJsonObject } from '@app/common';
import { INVALID_PARAMS, McpError } from '@app/mcp-transport';
import type { CompiledTool } from './tool-catalog.js';

/*
 * A call's `arguments` as a tool takes them: an object whose every name the tool declares. A
 * declared argument with a bad value is the endpoint's (or the extension tool's) to judge.
 */

/** Only declared argument names pass; a declared argument with a bad value is the endpoint's to judge. */
export function readArguments(tool: CompiledTool, raw: unknown): Record<string, unknown> {
  return readDeclaredArguments(tool.def.name, tool.argumentNames, raw);
}

export function readDeclaredArguments(
  name: string,
  allowed: ReadonlySet<string>,
  raw: unknown,
): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (!isJsonObject(raw)) {
    throw new McpError(INVALID_PARAMS, 'Invalid params: arguments must be an object');
  }
  for (const key of Object.keys(raw)) {
    if (!allowed.has(key)) {
      throw new McpError(INVALID_PARAMS, `Unknown argument "${key}" for tool ${name}`, {
        argument: key,
        allowed: [...allowed],
      });
    }
  }
  return raw;
}
