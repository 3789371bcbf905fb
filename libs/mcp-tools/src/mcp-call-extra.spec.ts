// oxlint-disable typescript/no-unsafe-type-assertion -- a partial principal stands in for the real one
import { describe, expect, it } from 'vitest';
import type { Principal } from '@app/identity';
import { detachedChannel, type McpRequestContext } from '@app/mcp-transport';
import { clientNameOf, type McpCallExtra } from './mcp-call-extra.js';

function ctx(clientInfo?: { name: string }): McpRequestContext {
  return {
    era: 'legacy',
    protocolVersion: '2025-11-25',
    method: 'tools/call',
    jsonRpcId: 1,
    clientInfo,
    clientCapabilities: {},
    meta: {},
    channel: detachedChannel(),
  };
}

function extra(clientName: string | null, userAgentProduct?: string): McpCallExtra {
  return {
    principal: { clientName } as Principal,
    requestId: 'r',
    correlationId: null,
    userAgentProduct,
  };
}

describe('clientNameOf', () => {
  it('prefers the clientInfo, then the OAuth client, then the User-Agent product', () => {
    expect(clientNameOf(ctx({ name: 'Claude' }), extra('Inspector', 'node'))).toBe('Claude');
    expect(clientNameOf(ctx(), extra('Inspector', 'node'))).toBe('Inspector');
    expect(clientNameOf(ctx(), extra(null, 'node'))).toBe('node');
    expect(clientNameOf(ctx(), extra(null))).toBeNull();
  });
});
