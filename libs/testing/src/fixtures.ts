import {
  AccessPolicy,
  ActiveMembershipCheck,
  KeyOwnerMembershipCheck,
  PermissionCheck,
  TokenScopeCheck,
} from '@app/access';
import type { Approval } from '@app/approvals';
import type { CallerContext, Principal } from '@app/identity';
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
 * An MCP call for unit tests: Olivia (no membership) through Claude Desktop with its OAuth token.
 * `principal` states whose call it is (token, organisation, person); `over` the rest.
 */
export function testMcpCaller(
  principal: Partial<Principal>,
  over: Partial<CallerContext> = {},
): CallerContext {
  return {
    principal: testPrincipal({
      tokenKind: 'oauth',
      tokenName: 'Claude Desktop',
      clientName: 'Claude Desktop',
      userEmail: 'olivia@acme.test',
      userName: 'Olivia',
      membership: null,
      ...principal,
    }),
    channel: 'mcp',
    clientName: 'Claude Desktop',
    confirmationId: null,
    requestId: 'req-1',
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

/** The access policy with the checks the access module provides, in its order. */
export function testAccessPolicy(): AccessPolicy {
  return new AccessPolicy(
    new KeyOwnerMembershipCheck(),
    new ActiveMembershipCheck(),
    new TokenScopeCheck(),
    new PermissionCheck(),
  );
}

/**
 * An approval request for unit tests: Olivia Owner's, pending, to delete portal user u-1 under
 * policy version 1, asked at 10:00 on 2026-12-04 for ten minutes. Each test states only what it is
 * about through `over`.
 */
export function testApproval(over: Partial<Approval> = {}): Approval {
  return {
    id: 'appr-1',
    organizationId: 'org-1',
    tokenId: 'tok-1',
    userId: 'olivia',
    requesterName: 'Olivia Owner',
    requesterEmail: 'olivia@acme.test',
    tool: 'delete_portal_user',
    argumentsDigest: 'd',
    arguments: { id: 'u-1' },
    targetType: 'portal_user',
    targetId: 'u-1',
    message: 'Delete?',
    clientName: 'agent',
    protocolVersion: '2026-07-28',
    requestId: 'req-asked',
    policyVersion: 1,
    expirySeconds: 600,
    status: 'pending',
    createdAt: new Date('2026-12-04T10:00:00.000Z'),
    expiresAt: new Date('2026-12-04T10:10:00.000Z'),
    decidedAt: null,
    decidedBy: null,
    decidedByName: null,
    decidedVia: null,
    decidedTokenName: null,
    reason: null,
    executedAt: null,
    executedRequestId: null,
    reportedAt: null,
    ...over,
  };
}
