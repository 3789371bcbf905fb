import { Injectable } from '@nestjs/common';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig, serverSecretKeys } from '@app/config';
import { DomainError } from '@app/errors';
import {
  constantTimeEqual,
  hashBrowserSecret,
  hmac,
  newBrowserSecret,
  safeReturnPath,
} from './browser-secrets.js';
import { IdentityRepository, type Person } from '@app/identity';
import { PeopleRepository } from './people.repository.js';

/** The person signed in on this browser, with every membership (active or not). */
export interface SignedInPerson extends Person {
  sessionId: string;
  sessionExpiresAt: Date;
}

/** The header a same-origin script sends its CSRF token in (forms use the `csrf` field). */
export const CSRF_HEADER = 'x-csrf-token';

/**
 * The person's browser session: a random secret in a `HttpOnly`, `SameSite=Lax` cookie (`Secure`
 * and `__Host-` prefixed whenever the public URL is HTTPS), its hash a row of `person_sessions`,
 * so every replica sees it and signing out ends it everywhere. CSRF: a signed double-submit
 * token, an HMAC of a random per-browser cookie under a key derived from the server's keys; every
 * state-changing form and same-origin script must send it back.
 */
@Injectable()
export class PersonSessionService {
  readonly sessionCookie: string;
  readonly csrfCookie: string;
  private readonly secure: boolean;
  private readonly csrfKey: string;

  constructor(
    private readonly config: AppConfig,
    private readonly people: PeopleRepository,
    private readonly identity: IdentityRepository,
  ) {
    this.secure = config.baseUrl.startsWith('https://');
    this.sessionCookie = this.secure ? '__Host-platform_session' : 'platform_session';
    this.csrfCookie = this.secure ? '__Host-platform_csrf' : 'platform_csrf';
    this.csrfKey = hmac(serverSecretKeys(config)[0], 'person-session csrf v1');
  }

  /** Who is signed in on this request's browser, or `null` (no cookie, ended or expired). */
  async currentPerson(request: FastifyRequest): Promise<SignedInPerson | null> {
    const secret = this.readCookie(request, this.sessionCookie);
    if (secret === undefined) return null;
    const session = await this.people.findLiveSession(hashBrowserSecret(secret));
    if (session === undefined) return null;
    const person = await this.identity.findPersonById(session.user_id);
    if (person === undefined) return null;
    return { ...person, sessionId: session.id, sessionExpiresAt: session.expires_at };
  }

  /** Signs `userId` in on this browser (a fresh session; any previous one on it is ended). */
  async start(request: FastifyRequest, reply: FastifyReply, userId: string): Promise<void> {
    const previous = this.readCookie(request, this.sessionCookie);
    if (previous !== undefined) await this.people.endSession(hashBrowserSecret(previous));
    const secret = newBrowserSecret();
    await this.people.insertSession(
      userId,
      hashBrowserSecret(secret),
      this.config.sessionTtlSeconds,
    );
    this.writeCookie(reply, this.sessionCookie, secret, this.config.sessionTtlSeconds);
    // A new CSRF secret with the new session (no token minted before sign-in stays valid).
    this.writeCookie(reply, this.csrfCookie, newBrowserSecret());
  }

  /** Ends this browser's session on every replica and clears its cookie. */
  async signOut(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const secret = this.readCookie(request, this.sessionCookie);
    if (secret !== undefined) await this.people.endSession(hashBrowserSecret(secret));
    this.writeCookie(reply, this.sessionCookie, '', 0);
  }

  /**
   * The CSRF token for this browser, to put in a form's `csrf` field or the `x-csrf-token`
   * header. Sets the per-browser CSRF cookie when the browser has none yet.
   */
  csrfToken(request: FastifyRequest, reply: FastifyReply): string {
    let secret = this.readCookie(request, this.csrfCookie);
    if (secret === undefined) {
      secret = newBrowserSecret();
      this.writeCookie(reply, this.csrfCookie, secret);
      // Later reads in this request see the same secret.
      request.headers.cookie = `${request.headers.cookie ?? ''}; ${this.csrfCookie}=${secret}`;
    }
    return hmac(this.csrfKey, secret);
  }

  /** Whether `token` (a form field or header value) is this browser's CSRF token. */
  csrfValid(request: FastifyRequest, token: unknown): boolean {
    const secret = this.readCookie(request, this.csrfCookie);
    if (secret === undefined || typeof token !== 'string' || token.length === 0) return false;
    return constantTimeEqual(token, hmac(this.csrfKey, secret));
  }

  /** Throws `FORBIDDEN` unless the request carries this browser's CSRF token. */
  assertCsrf(request: FastifyRequest, token: unknown = request.headers[CSRF_HEADER]): void {
    if (!this.csrfValid(request, token))
      throw new DomainError(
        'FORBIDDEN',
        'The CSRF token is missing or invalid; reload the page and try again',
      );
  }

  /** Where to send a browser to sign in, coming back to `returnTo` (a path on this server). */
  signInUrl(returnTo?: string): string {
    const path = safeReturnPath(returnTo);
    return `${this.config.baseUrl}/signin?return_to=${encodeURIComponent(path)}`;
  }

  /** A cookie of this request (`undefined` when absent or empty). */
  readCookie(request: FastifyRequest, name: string): string | undefined {
    const header = request.headers.cookie;
    if (header === undefined) return undefined;
    const value = parseCookie(header)[name];
    return value === undefined || value === '' ? undefined : value;
  }

  /** Sets an HttpOnly, SameSite=Lax cookie (Secure on HTTPS) for the whole site. */
  writeCookie(reply: FastifyReply, name: string, value: string, maxAge?: number): void {
    void reply.header(
      'set-cookie',
      stringifySetCookie(name, value, {
        httpOnly: true,
        secure: this.secure,
        sameSite: 'lax',
        path: '/',
        ...(maxAge === undefined ? {} : { maxAge }),
      }),
    );
  }
}
