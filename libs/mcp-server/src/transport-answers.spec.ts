import { describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { mcpTransportErrorBody, wwwAuthenticateChallenge } from './transport-answers.js';

describe('transport answers', () => {
  const config = loadConfig({ NODE_ENV: 'test', PUBLIC_BASE_URL: 'https://mcp.example' });
  const challenge = wwwAuthenticateChallenge(config);

  it('a 401 on /mcp names its metadata document and the scopes OAuth can grant; elsewhere the root document', () => {
    expect(challenge('/mcp', 'UNAUTHENTICATED', 'Bearer')).toBe(
      'Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", scope="portal_users:read accounts:read audit:read"',
    );
    expect(challenge('/v1/me', 'INVALID_TOKEN', 'Bearer')).toBe(
      'Bearer error="invalid_token", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource"',
    );
    expect(challenge('/mcp', 'INVALID_DPOP_PROOF', 'DPoP')).toMatch(
      /^DPoP error="invalid_dpop_proof", algs="[^"]+", resource_metadata="https:\/\/mcp\.example\/\.well-known\/oauth-protected-resource\/mcp"$/,
    );
  });

  it('only /mcp answers a body too large as JSON-RPC; every other route and status keeps the REST envelope', () => {
    expect(mcpTransportErrorBody('/mcp', 413)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Request body too large' },
    });
    expect(mcpTransportErrorBody('/v1/accounts', 413)).toBeUndefined();
    expect(mcpTransportErrorBody('/mcp', 401)).toBeUndefined();
  });
});
