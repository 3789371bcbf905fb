import type { Principal } from '@app/identity';
import { detachedChannel, type McpRequestContext } from '@app/mcp-transport';

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
