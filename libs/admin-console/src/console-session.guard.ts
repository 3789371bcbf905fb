import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '@app/config';
import { DomainError } from '@app/errors';
import {
  IS_PUBLIC,
  type MembershipStatus,
  type Permission,
  type Role,
  type Scope,
} from '@app/access-vocabulary';
import { RequestContext, type Principal } from '@app/identity';

/** The header the console sends its CSRF token in (the person-session library's). */
export const CONSOLE_CSRF_HEADER = 'x-csrf-token';
/** The organisation the console is looking at, for a person with several memberships. */
export const CONSOLE_ORGANIZATION_HEADER = 'x-organization-id';
/** How the audit trail and the history name writes made from the console. */
export const CONSOLE_CLIENT_NAME = 'Admin console';

/**
 * What a console session reaches: reading history and administering clients and tokens (with the
 * person's permissions deciding which). Never the platform's data routes: a session is not a
 * token, and the console has no page that writes portal users or accounts.
 */
export const CONSOLE_SESSION_SCOPES: readonly Scope[] = ['audit:read', 'org:admin'];

export interface ConsoleSessionMembership {
  membershipId: string;
  organizationId: string;
  organizationSlug: string;
  role: Role;
  status: MembershipStatus;
  permissions: readonly Permission[];
}

/** The person signed in on a browser, as the session library resolves them. */
export interface ConsoleSessionPerson {
  sessionId: string;
  userId: string;
  email: string;
  name: string;
  memberships: readonly ConsoleSessionMembership[];
  /** When the sign-in session ends: the principal expires with it (a token it mints cannot outlive it). */
  sessionExpiresAt?: Date;
}

/** The person-session library's side: who is signed in, and whether a CSRF token is theirs. */
export interface ConsoleSessions {
  currentPerson(request: FastifyRequest): Promise<ConsoleSessionPerson | null>;
  csrfValid(request: FastifyRequest, token: unknown): boolean;
}
export const CONSOLE_SESSIONS = Symbol('CONSOLE_SESSIONS');

/**
 * Lets the REST API accept the person's browser session, for same-origin requests from the admin
 * console only; runs before the bearer guard, which handles everything else unchanged.
 *
 * A request is a console request when it has no `Authorization` header and carries the CSRF
 * header (a custom header: another origin cannot send it without a CORS preflight, which this
 * server never grants, and cannot know its value). Such a request must come from this origin
 * (`Sec-Fetch-Site` and `Origin` when the browser sends them), carry this browser's CSRF token,
 * and a live session; then the caller is the person in the organisation the console names, with
 * the console's scopes and the person's permissions, and the four authorization checks run as
 * for a token. A cookie alone never authenticates anything.
 */
@Injectable()
export class ConsoleSessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly context: RequestContext,
    @Inject(CONSOLE_SESSIONS) private readonly sessions: ConsoleSessions,
    private readonly config: AppConfig,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [ctx.getHandler(), ctx.getClass()]))
      return true;
    const request = ctx.switchToHttp().getRequest<FastifyRequest>();
    const csrf = request.headers[CONSOLE_CSRF_HEADER];
    // Not a console request: the bearer guard decides (and answers 401 without a token).
    if (request.headers.authorization !== undefined || csrf === undefined) return true;
    if (!this.sameOrigin(request))
      throw new DomainError(
        'FORBIDDEN',
        'The console session is accepted only on requests from the console itself',
      );
    if (!this.sessions.csrfValid(request, csrf))
      throw new DomainError(
        'FORBIDDEN',
        'The CSRF token is missing or invalid; reload the page and try again',
      );
    const person = await this.sessions.currentPerson(request);
    if (person === null)
      throw new DomainError('UNAUTHENTICATED', 'Your session has ended: sign in again');
    this.context.setSessionCaller(request, {
      principal: principalOf(person, request.headers[CONSOLE_ORGANIZATION_HEADER]),
      channel: 'api',
      clientName: CONSOLE_CLIENT_NAME,
      confirmationId: null,
      requestId: request.id,
    });
    return true;
  }

  /** `Sec-Fetch-Site` and `Origin`, when the browser sends them, say this origin. */
  private sameOrigin(request: FastifyRequest): boolean {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin') return false;
    const origin = request.headers.origin;
    // Read per request: the port is known only once the server listens (PORT=0 in tests).
    return origin === undefined || origin === new URL(this.config.baseUrl).origin;
  }
}

/**
 * The caller a session stands for: the person, in the organisation named by the console (or their
 * only one). A person no longer in that organisation is `key_owner_not_member`, as for a token.
 */
export function principalOf(
  person: ConsoleSessionPerson,
  organizationHeader: string | string[] | undefined,
): Principal {
  const wanted = typeof organizationHeader === 'string' ? organizationHeader : undefined;
  const membership =
    wanted === undefined
      ? person.memberships.length === 1
        ? person.memberships[0]
        : undefined
      : person.memberships.find((m) => m.organizationId === wanted);
  if (membership === undefined)
    throw wanted === undefined
      ? DomainError.validation(
          [{ field: CONSOLE_ORGANIZATION_HEADER, message: 'name one of your organisations' }],
          `You belong to ${person.memberships.length} organisations: say which (${CONSOLE_ORGANIZATION_HEADER})`,
        )
      : new DomainError(
          'key_owner_not_member',
          'You are not a member of this organisation: sign in with an account that is',
        );
  return {
    // The session stands in for a token: its id is what the audit trail and the per-token
    // budget key on.
    tokenId: person.sessionId,
    tokenKind: 'session',
    tokenName: 'Admin console session',
    scopes: CONSOLE_SESSION_SCOPES,
    clientName: CONSOLE_CLIENT_NAME,
    // Not bound to the MCP endpoint; its scopes keep it to what the console reads.
    audience: null,
    dpopJkt: null,
    expiresAt: person.sessionExpiresAt ?? null,
    organizationId: membership.organizationId,
    organizationSlug: membership.organizationSlug,
    userId: person.userId,
    userEmail: person.email,
    userName: person.name,
    membership: {
      id: membership.membershipId,
      status: membership.status,
      role: membership.role,
      permissions: membership.permissions,
    },
  };
}
