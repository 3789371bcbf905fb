import { OAUTH_GRANTABLE_SCOPES } from '@app/access-vocabulary';
import { AppConfig, MCP_PATH } from '@app/config';
import type { ApiExceptionFilterOptions } from '@app/errors';
import { DPOP_SIGNING_ALGORITHMS } from '@app/identity';
import { INVALID_REQUEST } from '@app/mcp-transport';

/**
 * The `WWW-Authenticate` challenge of every 401, next to the protected-resource metadata it points
 * at (RFC 9728): `/.well-known/oauth-protected-resource/mcp` for `/mcp`, the root document for
 * other paths. On `/mcp` it names the scopes to ask for (what OAuth can grant), as the MCP
 * authorization spec asks; in the DPoP scheme it lists the proof algorithms (RFC 9449 §7.1).
 * The base URL is read per answer: it is final only once the server listens.
 */
export function wwwAuthenticateChallenge(
  config: AppConfig,
): ApiExceptionFilterOptions['challenge'] {
  return (path, code, scheme) => {
    const forMcp = path === MCP_PATH;
    const metadata = `${config.baseUrl}/.well-known/oauth-protected-resource${forMcp ? MCP_PATH : ''}`;
    const error =
      code === 'UNAUTHENTICATED'
        ? ''
        : `error="${code === 'INVALID_DPOP_PROOF' ? 'invalid_dpop_proof' : 'invalid_token'}", `;
    if (scheme === 'DPoP')
      return `DPoP ${error}algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}", resource_metadata="${metadata}"`;
    const scope = forMcp ? `, scope="${OAUTH_GRANTABLE_SCOPES.join(' ')}"` : '';
    return `Bearer ${error}resource_metadata="${metadata}"${scope}`;
  };
}

/**
 * The body of a transport refusal on a route whose protocol is not REST: the MCP endpoint answers
 * a body too large for it as JSON-RPC (Invalid Request, id null: no message was read), since its clients
 * read JSON-RPC, not the REST envelope. `undefined`: the REST envelope.
 */
export function mcpTransportErrorBody(route: string, status: number): unknown {
  if (route !== MCP_PATH || status !== 413) return undefined;
  return {
    jsonrpc: '2.0',
    id: null,
    error: { code: INVALID_REQUEST, message: 'Request body too large' },
  };
}
