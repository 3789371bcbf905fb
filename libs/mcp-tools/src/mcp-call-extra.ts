import type { Principal } from '@app/identity';

/** What the MCP controller hands every method handler besides the protocol context. */
export interface McpCallExtra {
  principal: Principal;
  /** The HTTP request id (logs, audit trail, -32603 data). */
  requestId: string;
}
