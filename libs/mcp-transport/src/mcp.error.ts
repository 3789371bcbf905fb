import {
  INVALID_PARAMS,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  RESOURCE_NOT_FOUND_LEGACY,
} from './mcp-protocol.constants.js';

/**
 * A JSON-RPC protocol error a handler throws on purpose ("the request is broken"). The endpoint
 * renders it as the response's `error` member; any other thrown value becomes a sanitised -32603.
 *
 * `legacyCode`, when set, replaces `code` on the legacy (2025) path: this is how one throw site
 * produces the era-correct code (see {@link McpError.resourceNotFound}).
 */
export class McpError extends Error {
  override readonly name = 'McpError';

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly legacyCode?: number,
  ) {
    super(message);
  }

  /** `resources/read` miss: -32002 on 2025 revisions, -32602 on 2026-07-28; `data.uri` in both. */
  static resourceNotFound(uri: string): McpError {
    return new McpError(INVALID_PARAMS, 'Resource not found', { uri }, RESOURCE_NOT_FOUND_LEGACY);
  }

  /**
   * The request needs a client capability it did not declare (modern era, HTTP 400).
   * `requiredCapabilities` is a ClientCapabilities object, e.g. `{ elicitation: { form: {} } }`.
   */
  static missingClientCapability(requiredCapabilities: Record<string, unknown>): McpError {
    const names = Object.keys(requiredCapabilities).join(', ');
    return new McpError(
      MISSING_REQUIRED_CLIENT_CAPABILITY,
      `Missing required client capability: ${names}`,
      { requiredCapabilities },
    );
  }

  /** The code this error carries on the given era's wire. */
  codeFor(era: 'legacy' | 'modern'): number {
    return era === 'legacy' && this.legacyCode !== undefined ? this.legacyCode : this.code;
  }
}
