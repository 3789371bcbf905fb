import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Post,
  Query,
  Redirect,
  Req,
  Res,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '@app/config';
import { Public } from '@app/access-vocabulary';
import { RequestContext } from '@app/identity';
import { safeReturnPath } from './browser-secrets.js';
import type { SessionView } from './session-view.js';
import { HtmlPage, messagePage, signInLinkPage, signInPage } from './pages.js';
import { PersonSessionService } from './person-session.service.js';
import { SignInLinkService } from './sign-in-links.service.js';
import { UpstreamOidcService } from './upstream-oidc.service.js';

type Form = Record<string, unknown>;
interface RedirectTo {
  url: string;
  statusCode: number;
}

const UPSTREAM_COOKIE = 'platform_oidc_pending';
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/** Every redirect back into this site goes through the one decision on return paths. */
function seeOther(reply: FastifyReply, returnTo: string): string {
  void reply.code(303).header('location', safeReturnPath(returnTo));
  return '';
}

function field(form: Form | undefined, name: string): string | undefined {
  const value = form?.[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The person signs in here: a one-time link by e-mail, or the company's OpenID Connect provider.
 * Server-rendered forms, each with the browser's CSRF token. Redirects go to same-origin paths
 * only.
 */
@ApiExcludeController()
@Public()
@Controller()
export class SignInController {
  constructor(
    private readonly config: AppConfig,
    private readonly sessions: PersonSessionService,
    private readonly links: SignInLinkService,
    private readonly upstream: UpstreamOidcService,
    private readonly context: RequestContext,
  ) {}

  private get requestId(): string | null {
    return this.context.requestId || null;
  }

  @Get('signin')
  @HtmlPage()
  async signInForm(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Query('return_to') returnTo?: string,
  ): Promise<string> {
    const path = safeReturnPath(returnTo);
    if ((await this.sessions.currentPerson(request)) !== null && returnTo !== undefined)
      return seeOther(reply, path);
    return signInPage({
      csrf: this.sessions.csrfToken(request, reply),
      returnTo: path,
      upstream: this.upstream.enabled ? { url: '/signin/oidc' } : undefined,
      emailOffered: this.links.offered,
    });
  }

  @Post('signin')
  @HttpCode(200)
  @HtmlPage()
  async requestLink(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() form?: Form,
  ): Promise<string> {
    const returnTo = safeReturnPath(field(form, 'return_to'));
    const page = (status: number, outcome: { error: string } | { sentTo: string }): string => {
      void reply.code(status);
      return signInPage({
        csrf: this.sessions.csrfToken(request, reply),
        returnTo,
        upstream: this.upstream.enabled ? { url: '/signin/oidc' } : undefined,
        emailOffered: this.links.offered,
        ...outcome,
      });
    };
    if (!this.sessions.csrfValid(request, field(form, 'csrf'))) {
      return page(403, { error: 'This form expired. Please try again.' });
    }
    if (!this.links.offered) {
      return page(404, { error: 'E-mail sign-in is not available on this server.' });
    }
    const email = (field(form, 'email') ?? '').trim();
    if (!EMAIL.test(email)) {
      return page(422, { error: 'Enter an e-mail address like name@example.com.' });
    }
    // The same for every address: queued, answered at once (the lookup and mail come later).
    this.links.request({ email, returnTo, ip: request.ip, requestId: this.requestId });
    return page(200, { sentTo: email });
  }

  /** The link from the e-mail: a page with one button, so mail scanners that prefetch do not use it. */
  @Get('signin/link')
  @HtmlPage({ noReferrer: true })
  signInLink(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Query('token') token?: string,
  ): string {
    if (token === undefined || token === '') {
      void reply.code(400);
      return messagePage('Sign-in link incomplete', 'Open the whole link from the e-mail.', {
        href: '/signin',
        label: 'Get a new link',
      });
    }
    return signInLinkPage({ csrf: this.sessions.csrfToken(request, reply), token });
  }

  @Post('signin/link')
  @HttpCode(200)
  @HtmlPage()
  async useSignInLink(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() form?: Form,
  ): Promise<string> {
    if (!this.sessions.csrfValid(request, field(form, 'csrf'))) {
      void reply.code(403);
      return messagePage(
        'This form expired',
        'Open the link from the e-mail again and press Continue.',
      );
    }
    const used = await this.links.consume(field(form, 'token') ?? '', this.requestId);
    if (!used.ok) {
      void reply.code(used.reason === 'unknown' ? 404 : 410);
      const why = {
        unknown: 'This sign-in link is not valid.',
        used: 'This sign-in link was already used. Each link works once.',
        expired: 'This sign-in link has expired.',
      }[used.reason];
      return messagePage('Sign-in link not valid', why, {
        href: '/signin',
        label: 'Get a new link',
      });
    }
    await this.sessions.start(request, reply, used.userId);
    await this.links.recordSignIn(used.userId, 'email_link', this.requestId);
    return seeOther(reply, used.returnTo);
  }

  @Post('signout')
  @Header('cache-control', 'no-store')
  @Redirect()
  async signOut(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() form?: Form,
  ): Promise<RedirectTo> {
    // A forged sign-out is harmless but still refused: every form carries the token.
    this.sessions.assertCsrf(request, field(form, 'csrf') ?? request.headers['x-csrf-token']);
    await this.sessions.signOut(request, reply);
    return { url: this.sessions.signInUrl(field(form, 'return_to')), statusCode: 303 };
  }

  /** For same-origin scripts (the admin console): who is signed in, and the CSRF token to send. */
  @Get('session')
  @Header('cache-control', 'no-store')
  async session(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionView> {
    const person = await this.sessions.currentPerson(request);
    return {
      person:
        person === null
          ? null
          : {
              user_id: person.userId,
              email: person.email,
              name: person.name,
              session_expires_at: person.sessionExpiresAt.toISOString(),
              memberships: person.memberships.map((m) => ({
                organization_id: m.organizationId,
                organization_slug: m.organizationSlug,
                organization_name: m.organizationName,
                role: m.role,
                status: m.status,
                permissions: m.permissions,
              })),
            },
      csrf_token: this.sessions.csrfToken(request, reply),
      sign_in_url: this.sessions.signInUrl(),
    };
  }

  @Get('signin/oidc')
  @Header('cache-control', 'no-store')
  @Redirect()
  async beginUpstream(
    @Res({ passthrough: true }) reply: FastifyReply,
    @Query('return_to') returnTo?: string,
  ): Promise<RedirectTo> {
    if (!this.upstream.enabled) return { url: '/signin', statusCode: 303 };
    const { url, pending } = await this.upstream.begin(safeReturnPath(returnTo));
    this.sessions.writeCookie(reply, UPSTREAM_COOKIE, pending, 600);
    return { url, statusCode: 303 };
  }

  @Get('signin/oidc/callback')
  @HtmlPage()
  async completeUpstream(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const pending = this.sessions.readCookie(request, UPSTREAM_COOKIE);
    this.sessions.writeCookie(reply, UPSTREAM_COOKIE, '', 0);
    const result = await this.upstream.complete(new URL(request.url, this.config.baseUrl), pending);
    if (!result.ok) {
      void reply.code(403);
      return messagePage('Sign-in refused', result.message, {
        href: '/signin',
        label: 'Back to sign-in',
      });
    }
    await this.sessions.start(request, reply, result.userId);
    await this.links.recordSignIn(result.userId, 'oidc', this.requestId);
    return seeOther(reply, result.returnTo);
  }
}
