import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '@app/config';
import { DomainError, DPOP_SCHEME_DETAILS } from '@app/errors';
import type { Principal } from './principal.js';
import { IS_PUBLIC } from '@app/access-vocabulary';
import { MCP_RESOURCE } from './mcp-resource.decorator.js';
import { DpopProofVerifier } from './dpop-proof.verifier.js';
import { RequestContext } from './request-context.js';
import { TokensService } from './tokens.service.js';

/** `Authorization: DPoP <token>` (RFC 9449 §7.1); the scheme name is case-insensitive. */
const DPOP_AUTHORIZATION = /^DPoP +([A-Za-z0-9\-._~+/]+=*) *$/i;

function headerValues(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * Authenticates every non-public route: the admin console's session (checked by its guard first),
 * a bearer token through passport, or a DPoP-bound token with its proof. No token → 401
 * UNAUTHENTICATED; bad, expired or revoked → 401 INVALID_TOKEN. A token bound to a key (RFC 9449)
 * is accepted only as `Authorization: DPoP` with a valid proof for that key (else 401
 * INVALID_DPOP_PROOF), on every route this guard covers; as a Bearer token it is INVALID_TOKEN.
 */
@Injectable()
export class BearerAuthGuard extends AuthGuard('bearer') {
  constructor(
    private readonly reflector: Reflector,
    private readonly context: RequestContext,
    private readonly config: AppConfig,
    private readonly tokens: TokensService,
    private readonly dpop: DpopProofVerifier,
  ) {
    super();
  }

  override async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [ctx.getHandler(), ctx.getClass()]))
      return true;
    // passport puts the strategy's principal on `request.user`.
    const request = ctx.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
    // The admin console's session guard ran first and authenticated this same-origin request.
    if (this.context.authenticatedBySession(request)) return true;
    const dpopToken = DPOP_AUTHORIZATION.exec(request.headers.authorization ?? '')?.[1];
    const principal =
      dpopToken === undefined
        ? await this.bearerPrincipal(ctx, request)
        : await this.dpopPrincipal(request, dpopToken);
    // RFC 8707: a token issued for one resource (an OAuth token for the MCP URL) works only there.
    if (principal.audience !== null && principal.audience !== this.resourceOf(ctx))
      throw new DomainError(
        'INVALID_TOKEN',
        'The bearer token was issued for another resource (audience); get a token for this one',
      );
    this.context.setCaller({
      principal,
      channel: 'api',
      clientName: principal.clientName,
      confirmationId: null,
      requestId: request.id,
    });
    return true;
  }

  /** `Authorization: Bearer`, through passport; a token bound to a key is refused this way. */
  private async bearerPrincipal(
    ctx: ExecutionContext,
    request: FastifyRequest & { user?: Principal },
  ): Promise<Principal> {
    await super.canActivate(ctx);
    const principal = request.user;
    // Unreachable: passport either set the principal or `handleRequest` threw.
    if (principal === undefined)
      throw new DomainError('UNAUTHENTICATED', 'No authenticated caller');
    if (principal.dpopJkt !== null)
      throw new DomainError(
        'INVALID_TOKEN',
        'This token is bound to a key (DPoP): send it as "Authorization: DPoP <token>" with a DPoP proof, not as a Bearer token',
        DPOP_SCHEME_DETAILS,
      );
    return principal;
  }

  /** `Authorization: DPoP`: the token, bound to a key, and a valid proof for that key. */
  private async dpopPrincipal(
    request: FastifyRequest & { user?: Principal },
    token: string,
  ): Promise<Principal> {
    const principal = await this.tokens.authenticate(token).catch((err: unknown) => {
      throw err instanceof DomainError
        ? new DomainError(err.code, err.message, DPOP_SCHEME_DETAILS)
        : err;
    });
    if (principal.dpopJkt === null)
      throw new DomainError(
        'INVALID_TOKEN',
        'This token is not bound to a key; send it as "Authorization: Bearer <token>"',
        DPOP_SCHEME_DETAILS,
      );
    await this.dpop.verify({
      proofs: headerValues(request.headers.dpop),
      method: request.method,
      url: `${this.config.baseUrl}${request.url.split('?', 1)[0] ?? ''}`,
      accessToken: token,
      jkt: principal.dpopJkt,
    });
    request.user = principal;
    return principal;
  }

  /** The resource a request is addressed to: the MCP URL for the route marked so, else the REST API. */
  private resourceOf(ctx: ExecutionContext): string {
    return this.reflector.getAllAndOverride<boolean>(MCP_RESOURCE, [
      ctx.getHandler(),
      ctx.getClass(),
    ])
      ? this.config.mcpUrl
      : `${this.config.baseUrl}/v1`;
  }

  override handleRequest<TUser = Principal>(err: unknown, user: TUser | false): TUser {
    if (err) throw err;
    if (!user)
      throw new DomainError(
        'UNAUTHENTICATED',
        'A bearer token is required (Authorization: Bearer <token>)',
      );
    return user;
  }
}
