import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '@app/config';
import { DomainError } from '@app/errors';
import type { Principal } from './principal.js';
import { IS_PUBLIC } from '@app/access-vocabulary';
import { MCP_RESOURCE } from './mcp-resource.decorator.js';
import { RequestContext } from './request-context.js';

/**
 * Authenticates every non-public route: the admin console's session (checked by its guard first)
 * or a bearer token through passport. No token → 401 UNAUTHENTICATED; bad, expired or revoked → 401 INVALID_TOKEN.
 */
@Injectable()
export class BearerAuthGuard extends AuthGuard('bearer') {
  constructor(
    private readonly reflector: Reflector,
    private readonly context: RequestContext,
    private readonly config: AppConfig,
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
    await super.canActivate(ctx);
    const principal = request.user;
    // Unreachable: passport either set the principal or `handleRequest` threw.
    if (principal === undefined)
      throw new DomainError('UNAUTHENTICATED', 'No authenticated caller');
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
