import { OAUTH_GRANTABLE_SCOPES, isScope, type Scope } from '@app/access-vocabulary';
import { clientDisplayName } from './client-display-name.js';
import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from 'oidc-provider';
import { AppConfig, isLoopbackHostname } from '@app/config';
import { OAuthProviderService, CONSENT_PATH } from './oauth-provider.service.js';
import { isVerifiedClient } from './client-metadata-rules.js';
import { consentPage, messagePage, noMembershipPage } from './pages.js';
import type { PageOutcome } from './page-outcome.js';
import { PersonSessionService } from './person-session.service.js';
import { OIDC_SCOPES, SCOPE_WORDS } from './scope-words.js';

/**
 * The consent step of an authorization in progress: who asks (the client's name and host, from its
 * metadata document or registration), for which organisation (the person's active memberships),
 * which scopes (in plain words); approve → a grant for that membership; deny → `access_denied`.
 */
@Injectable()
export class ConsentService {
  constructor(
    private readonly config: AppConfig,
    private readonly oauth: OAuthProviderService,
    private readonly sessions: PersonSessionService,
  ) {}

  async show(request: FastifyRequest, reply: FastifyReply, uid: string): Promise<PageOutcome> {
    const details = await this.details(request, reply, uid);
    if (details === undefined) return expired();
    const person = await this.sessions.currentPerson(request);
    if (person === null)
      return { kind: 'redirect', url: this.sessions.signInUrl(`${CONSENT_PATH}/${details.uid}`) };
    const csrf = this.sessions.csrfToken(request, reply);
    const active = person.memberships.filter((m) => m.status === 'active');
    if (active.length === 0)
      return page(200, noMembershipPage({ csrf, uid: details.uid, personEmail: person.email }));
    const clientId = String(details.params.client_id);
    const client = await this.oauth.provider.Client.find(clientId);
    if (client === undefined) return expired();
    const identity = describeClient(
      clientId,
      clientDisplayName(client.clientName),
      client.clientUri,
      client.redirectUris,
      client,
    );
    return page(
      200,
      consentPage({
        csrf,
        uid: details.uid,
        personEmail: person.email,
        clientName: identity.name,
        clientHost: identity.host,
        warning: identity.warning,
        organizations: active.map((m) => ({
          membershipId: m.membershipId,
          name: m.organizationName,
          slug: m.organizationSlug,
        })),
        scopes: this.requestedScopes(details.params.scope).map((scope) => ({
          scope,
          words: SCOPE_WORDS[scope],
        })),
      }),
    );
  }

  async decide(
    request: FastifyRequest,
    reply: FastifyReply,
    uid: string,
    form: { csrf?: string; decision?: string; membership?: string },
  ): Promise<PageOutcome> {
    if (!this.sessions.csrfValid(request, form.csrf))
      return page(
        403,
        messagePage('This form expired', 'Go back to the application and connect again.'),
      );
    const details = await this.details(request, reply, uid);
    if (details === undefined) return expired();
    const person = await this.sessions.currentPerson(request);
    if (person === null)
      return { kind: 'redirect', url: this.sessions.signInUrl(`${CONSENT_PATH}/${details.uid}`) };
    const provider = this.oauth.provider;

    if (form.decision !== 'approve') {
      const url = await provider.interactionResult(
        request.raw,
        reply.raw,
        {
          error: 'access_denied',
          error_description: 'The person denied access to the application',
        },
        { mergeWithLastSubmission: false },
      );
      return { kind: 'redirect', url };
    }

    const membership = person.memberships.find(
      (m) => m.membershipId === form.membership && m.status === 'active',
    );
    if (membership === undefined)
      return page(
        422,
        messagePage('Choose an organisation', 'Go back and choose one of your organisations.'),
      );
    const clientId = String(details.params.client_id);
    const grant = new provider.Grant({ accountId: membership.membershipId, clientId });
    // Every scope asked for that the provider recognises (ours are among them) is granted at
    // the provider level too, from the request itself: the prompt's details list the missing
    // ones only when consent is the current prompt, not when the person had to sign in first
    // (sign-in and consent are answered here together), which would ask for consent twice.
    const providerScopes = requestedProviderScopes(details.params.scope);
    if (providerScopes.length > 0) grant.addOIDCScope(providerScopes.join(' '));
    grant.addResourceScope(
      this.config.mcpUrl,
      this.requestedScopes(details.params.scope).join(' '),
    );
    const grantId = await grant.save();
    const url = await provider.interactionResult(
      request.raw,
      reply.raw,
      { login: { accountId: membership.membershipId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
    return { kind: 'redirect', url };
  }

  /** The read scopes the client asked for; all of them when it named none. */
  private requestedScopes(scope: unknown): Scope[] {
    const asked = (typeof scope === 'string' ? scope : '').split(' ').filter(isScope);
    const granted = OAUTH_GRANTABLE_SCOPES.filter((s) => asked.includes(s));
    return granted.length > 0 ? granted : [...OAUTH_GRANTABLE_SCOPES];
  }

  private async details(request: FastifyRequest, reply: FastifyReply, uid: string) {
    try {
      const details = await this.oauth.provider.interactionDetails(request.raw, reply.raw);
      return details.uid === uid ? details : undefined;
    } catch (err) {
      if (err instanceof errors.SessionNotFound) return undefined;
      throw err;
    }
  }
}

/** The scopes asked for that the provider recognises: the OpenID Connect ones and ours. */
function requestedProviderScopes(scope: unknown): string[] {
  const asked = typeof scope === 'string' ? scope.split(' ') : [];
  return [...OIDC_SCOPES, ...OAUTH_GRANTABLE_SCOPES].filter((s) => asked.includes(s));
}

function page(status: number, html: string): PageOutcome {
  return { kind: 'page', status, html };
}

function expired(): PageOutcome {
  return page(
    410,
    messagePage(
      'This authorization request expired',
      'Go back to the application and connect again.',
    ),
  );
}

/** The client's name, the host it lives on, and why to be careful, for the consent page. */
function describeClient(
  clientId: string,
  name: string | undefined,
  clientUri: string | undefined,
  redirectUris: readonly string[] | undefined,
  client: object,
): { name: string; host: string; warning?: string } {
  const cimd = URL.parse(clientId);
  const fromDocument = isVerifiedClient(client) && cimd !== null;
  const redirect = URL.parse(redirectUris?.[0] ?? '');
  const loopback = redirect !== null && isLoopbackHostname(redirect.hostname);
  const host = fromDocument
    ? cimd.host
    : (URL.parse(clientUri ?? '')?.host ?? redirect?.host ?? 'an unknown host');
  const warnings: string[] = [];
  if (!fromDocument)
    warnings.push(
      'This application registered itself: its name and host are what it says about itself and were not verified.',
    );
  if (loopback)
    warnings.push(
      `After you decide, you are sent back to a program on this computer (${redirect.host}). Continue only if you started it.`,
    );
  return {
    name: name ?? clientId,
    host,
    warning: warnings.length === 0 ? undefined : warnings.join(' '),
  };
}
