import { isJsonObject } from '@app/common';

/** One tool argument mirrored into an `Mcp-Param-{header}` request header (SEP-2243 `x-mcp-header`). */
export interface ParamHeader {
  /** The name after `Mcp-Param-`, as the schema spells it. */
  header: string;
  argument: string;
  type: 'string' | 'integer' | 'boolean';
}

/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The `x-mcp-header` arguments of a tool's input schema (root `properties` only, as the spec
 * allows). Throws when the schema breaks a rule clients enforce by dropping the tool silently
 * (a name that is not a token, a duplicate ignoring case, a type other than string/integer/boolean).
 */
export function paramHeadersOf(toolName: string, inputSchema: unknown): ParamHeader[] {
  if (!isJsonObject(inputSchema) || !isJsonObject(inputSchema.properties)) return [];
  const headers: ParamHeader[] = [];
  const seen = new Set<string>();
  for (const [argument, schema] of Object.entries(inputSchema.properties)) {
    if (!isJsonObject(schema) || schema['x-mcp-header'] === undefined) continue;
    const header = schema['x-mcp-header'];
    const type = schema.type;
    if (typeof header !== 'string' || !TOKEN.test(header))
      throw new Error(`${toolName}.${argument}: x-mcp-header must be an HTTP token`);
    if (seen.has(header.toLowerCase()))
      throw new Error(`${toolName}.${argument}: x-mcp-header ${header} is used twice`);
    if (type !== 'string' && type !== 'integer' && type !== 'boolean')
      throw new Error(
        `${toolName}.${argument}: x-mcp-header needs type string, integer or boolean`,
      );
    seen.add(header.toLowerCase());
    headers.push({ header, argument, type });
  }
  return headers;
}

/**
 * Whether a decoded header value says the same as the body value: strings exactly, integers
 * numerically (`42.0` = `42`), booleans as `true`/`false`.
 */
export function headerMatchesValue(
  decoded: string,
  value: unknown,
  type: ParamHeader['type'],
): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string' && decoded === value;
    case 'integer': {
      if (typeof value !== 'number' || !/^-?\d+(?:\.0+)?$/.test(decoded)) return false;
      const parsed = Number(decoded);
      return Math.abs(parsed) <= MAX_SAFE && parsed === value;
    }
    case 'boolean':
      return (decoded === 'true' && value === true) || (decoded === 'false' && value === false);
    default:
      return false;
  }
}
