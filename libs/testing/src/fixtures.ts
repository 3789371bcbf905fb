import type { Principal } from '@app/identity';
import {
  detachedChannel,
  McpError,
  type McpHandlerOutcome,
  type McpRequestContext,
} from '@app/mcp-transport';

/**
 * A caller for unit tests: Ana, an active member of Acme, with a personal token. Each test states
 * only what it is about (`scopes`, `membership`, …) through `over`.
 */
export function testPrincipal(over: Partial<Principal> = {}): Principal {
  return {
    tokenId: 't1',
    tokenKind: 'personal',
    audience: null,
    dpopJkt: null,
    tokenName: 'test token',
    scopes: [],
    expiresAt: null,
    clientName: null,
    organizationId: 'o1',
    organizationSlug: 'acme',
    userId: 'u1',
    userEmail: 'ana@acme.test',
    userName: 'Ana',
    membership: { id: 'm1', status: 'active', role: 'owner', permissions: ['admin'] },
    ...over,
  };
}

/**
 * An MCP request context for unit tests: a `tools/call` on 2026-07-28 (`era: 'legacy'` gives
 * 2025-11-25 unless `protocolVersion` says otherwise), no client capabilities, a channel that
 * sends nothing.
 */
export function testRequestContext(over: Partial<McpRequestContext> = {}): McpRequestContext {
  const era = over.era ?? 'modern';
  return {
    era,
    protocolVersion: era === 'modern' ? '2026-07-28' : '2025-11-25',
    method: 'tools/call',
    jsonRpcId: 1,
    clientCapabilities: {},
    meta: {},
    channel: detachedChannel(),
    ...over,
  };
}

/** A handler's `complete` result (anything else fails the test, naming what came instead). */
export function completeResult(outcome: McpHandlerOutcome): Record<string, unknown> {
  if (outcome.kind !== 'complete')
    throw new Error(`expected a complete result, got ${outcome.kind}`);
  return outcome.result;
}

/** The McpError a handler's promise rejects with (resolving, or any other error, fails the test). */
export async function mcpErrorOf(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof McpError)) throw new Error(`expected an McpError, got ${String(error)}`);
  return error;
}
