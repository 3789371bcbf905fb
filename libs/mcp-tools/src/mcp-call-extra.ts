import type { McpRequestContext } from '@app/mcp-transport';
import type { CallerContext, Principal } from '@app/identity';

/** What the MCP controller hands every method handler besides the protocol context. */
export interface McpCallExtra {
  principal: Principal;
  /** The HTTP request id the server issued (logs, audit trail, -32603 data). */
  requestId: string;
  /** The client's own `X-Request-Id`, kept as a correlation field only (never a link). */
  correlationId: string | null;
  /** The first product of the request's `User-Agent`, normalised (see `userAgentProduct`). */
  userAgentProduct?: string;
}

/**
 * The client name the history, the audit trail and the logs record for a call, most specific first:
 * the client's own `clientInfo` (2026-07-28 `_meta`, or the 2025 session id minted at `initialize`),
 * then the name of the OAuth client the token was issued to, then the `User-Agent` product (a 2025
 * client that sent no session id).
 */
export function clientNameOf(ctx: McpRequestContext, extra: McpCallExtra): string | null {
  return ctx.clientInfo?.name ?? extra.principal.clientName ?? extra.userAgentProduct ?? null;
}

/** The caller as the REST layer sees an MCP dispatch (channel `mcp`, the client's own name). */
export function callerOf(ctx: McpRequestContext, extra: McpCallExtra): CallerContext {
  return {
    principal: extra.principal,
    channel: 'mcp',
    clientName: clientNameOf(ctx, extra),
    confirmationId: null,
    requestId: extra.requestId,
  };
}
