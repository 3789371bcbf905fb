import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AppConfig, MCP_PATH } from '@app/config';
import { OAUTH_GRANTABLE_SCOPES, Public, type Scope } from '@app/access-vocabulary';
import { DPOP_SIGNING_ALGORITHMS } from '@app/identity';

/** RFC 9728 OAuth Protected Resource Metadata for the MCP endpoint. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: readonly Scope[];
  bearer_methods_supported: ['header'];
  resource_name: string;
  dpop_signing_alg_values_supported: readonly string[];
  dpop_bound_access_tokens_required: false;
}

/**
 * Where MCP clients discover how to get a token for `/mcp`: the path-inserted location that the
 * 401 challenge names (`/.well-known/oauth-protected-resource/mcp`) and the root fallback clients
 * try next. Public, and exempt from the IP rate limit.
 */
@ApiExcludeController()
@Public()
@Controller('.well-known/oauth-protected-resource')
export class ProtectedResourceMetadataController {
  constructor(private readonly config: AppConfig) {}

  @Get(MCP_PATH)
  @Header('Cache-Control', 'public, max-age=3600')
  forMcpEndpoint(): ProtectedResourceMetadata {
    return this.metadata();
  }

  @Get()
  @Header('Cache-Control', 'public, max-age=3600')
  atRoot(): ProtectedResourceMetadata {
    return this.metadata();
  }

  /** Built per request from the config (the URLs are final only once the server listens). */
  private metadata(): ProtectedResourceMetadata {
    const { baseUrl, mcpUrl } = this.config;
    return {
      resource: mcpUrl,
      authorization_servers: [baseUrl],
      // What an OAuth client can be granted here: read scopes only (writes need a personal token).
      scopes_supported: OAUTH_GRANTABLE_SCOPES,
      bearer_methods_supported: ['header'],
      resource_name: 'Platform MCP server',
      // Tokens bound to a key (DPoP) are verified here; unbound ones are accepted too.
      dpop_signing_alg_values_supported: DPOP_SIGNING_ALGORITHMS,
      dpop_bound_access_tokens_required: false,
    };
  }
}
