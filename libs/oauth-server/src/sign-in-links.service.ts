import { createHash } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '@app/config';
import { DomainError } from '@app/errors';
import { AuditTrail, type AuditChanges } from '@app/audit-trail';
import { PERSONAL_MAILER, type PersonalMailer } from '@app/mail';
import { RateLimitService } from '@app/rate-limit';
import { hashBrowserSecret, newBrowserSecret, safeReturnPath } from './browser-secrets.js';
import { IdentityRepository, type Person } from '@app/identity';
import { PeopleRepository } from './people.repository.js';

export interface IssuedSignInLink {
  /** The link; it signs the person in once, until `expiresAt`. Show or send it, never log it. */
  url: string;
  expiresAt: Date;
  userId: string;
}

export type SignInLinkUse =
  | { ok: true; userId: string; returnTo: string }
  | { ok: false; reason: 'unknown' | 'used' | 'expired' };

/** A request for a sign-in mail, as the form took it (nothing about the address is known yet). */
export interface SignInMailRequest {
  email: string;
  returnTo?: string;
  /** The client IP and request id of the form's request, for the audit events it leads to. */
  ip: string;
  requestId: string | null;
}

/** Why a sign-in was refused, as its audit event says. */
type RefusalReason = 'no_active_membership' | 'too_many_links' | 'link_used' | 'link_expired';

/**
 * Requests waiting for their mail beyond this are dropped (logged): a flood must not grow the
 * process without bound. The per-IP rate limit keeps honest traffic far below it.
 */
const MAX_PENDING = 1000;

/**
 * One-time sign-in links: a random secret in a URL, its hash a row of `sign_in_links`, used at
 * most once (a conditional UPDATE decides the single winner across replicas) before it expires.
 *
 * The form's request does the same thing for every address: it queues the request and answers.
 * Looking the address up, the per-address quota, the link and its mail happen afterwards, off the
 * request path, so neither the answer nor its timing says whether the address is known. The mail
 * is the person's own ({@link PersonalMailer}): never an organisation's outbox. Every sign-in,
 * link mailed and refusal is an audit event of each organisation the person belongs to.
 */
@Injectable()
export class SignInLinkService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SignInLinkService.name);
  private readonly pending: SignInMailRequest[] = [];
  private draining?: Promise<void>;

  constructor(
    private readonly config: AppConfig,
    private readonly people: PeopleRepository,
    private readonly identity: IdentityRepository,
    private readonly audit: AuditTrail,
    private readonly limits: RateLimitService,
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(PERSONAL_MAILER) private readonly mailer: PersonalMailer,
  ) {}

  /**
   * Whether people may ask for a link by e-mail: only where the mail reaches the person alone
   * (SMTP, or this machine's local mail drop outside production).
   */
  get offered(): boolean {
    return this.mailer.kind !== 'none';
  }

  onApplicationBootstrap(): void {
    if (this.mailer.kind === 'smtp') return;
    if (this.mailer.kind === 'local') {
      this.logger.log(
        'Sign-in links are written to the local mail drop under DATA_DIR/mail (no SMTP_URL): read yours with `npm run admin -- mail:show --email <address>`',
      );
      return;
    }
    this.logger.warn(
      this.config.oidcIssuer === undefined
        ? 'E-mail sign-in is off: NODE_ENV=production and no SMTP_URL, so a sign-in link could not reach only its person; with no OIDC_ISSUER either, nobody can sign in (consent, console) until one of them is set'
        : 'E-mail sign-in is off: NODE_ENV=production and no SMTP_URL; people sign in with the OpenID Connect provider (OIDC_ISSUER)',
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.settled();
  }

  /**
   * A link for the person with this e-mail, returned to the caller (the admin command prints it
   * to the operator who created the person). `NOT_FOUND` when no person has this address.
   * `returnTo`: a path on this server to land on.
   */
  async issue(email: string, returnTo?: string): Promise<IssuedSignInLink> {
    const person = await this.identity.findPersonByEmail(email);
    if (person === undefined) throw DomainError.notFound('Person');
    const secret = newBrowserSecret();
    const expiresAt = await this.people.insertSignInLink(
      person.userId,
      hashBrowserSecret(secret),
      safeReturnPath(returnTo),
      this.config.signInLinkTtlSeconds,
    );
    return { url: this.urlFor(secret), expiresAt, userId: person.userId };
  }

  /**
   * Queues a sign-in mail for this address and returns at once, whatever the address: the caller
   * cannot tell (by the answer or its time) whether a link was sent. See {@link deliver}.
   */
  request(request: SignInMailRequest): void {
    if (!this.offered) return;
    if (this.pending.length >= MAX_PENDING) {
      this.logger.warn(`Sign-in request dropped: ${MAX_PENDING} are already waiting for mail`);
      return;
    }
    this.pending.push(request);
    this.drain();
  }

  /** Resolves once every queued sign-in request has been handled (shutdown, tests). */
  async settled(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
  }

  /** Uses a link: the first use wins; a second use, or a use after expiry, is refused. */
  async consume(secret: string, requestId: string | null): Promise<SignInLinkUse> {
    const hash = hashBrowserSecret(secret);
    const used = await this.people.consumeSignInLink(hash);
    if (used !== undefined)
      return { ok: true, userId: used.user_id, returnTo: safeReturnPath(used.return_to) };
    const state = await this.people.describeSignInLink(hash);
    if (state.state === 'unknown') return { ok: false, reason: 'unknown' };
    const reason = state.state === 'expired' ? 'expired' : 'used';
    await this.recordRefusal(state.userId, `link_${reason}`, requestId);
    return { ok: false, reason };
  }

  /** Records a completed sign-in (e-mail link or the OpenID Connect provider). */
  async recordSignIn(
    userId: string,
    method: 'email_link' | 'oidc',
    requestId: string | null,
  ): Promise<void> {
    const person = await this.identity.findPersonById(userId);
    if (person === undefined) return;
    await this.ds.transaction((tx) =>
      this.recordForPerson(tx, person, 'person.signed_in', 'person', requestId, {
        method: { before: null, after: method },
      }),
    );
  }

  private drain(): void {
    if (this.draining !== undefined) return;
    this.draining = (async () => {
      for (let next = this.pending.shift(); next !== undefined; next = this.pending.shift()) {
        await this.deliver(next).catch((err: unknown) =>
          this.logger.warn({ err }, 'Sign-in mail not sent'),
        );
      }
    })().finally(() => {
      this.draining = undefined;
      // A request queued after the loop's last look but before this line.
      if (this.pending.length > 0) this.drain();
    });
  }

  /**
   * Off the request path: the address's quota is spent whether or not it is known (the same work
   * either way); then, for a person with an active membership and quota left, a link in the
   * database and a mail to them alone. Everything else sends nothing and is audited as a refusal
   * where there is someone to audit it for.
   */
  private async deliver(request: SignInMailRequest): Promise<void> {
    const quota = await this.limits.consumeQuota('sign_in_mail', addressKey(request.email));
    const person = await this.identity.findPersonByEmail(request.email);
    if (person === undefined) {
      this.logger.log('Sign-in link requested for an unknown address; nothing sent');
      return;
    }
    const refusal: RefusalReason | undefined = !person.memberships.some(
      (m) => m.status === 'active',
    )
      ? 'no_active_membership'
      : !quota.allowed
        ? 'too_many_links'
        : undefined;
    if (refusal !== undefined) {
      this.logger.log(`Sign-in link refused (${refusal}); nothing sent`);
      await this.ds.transaction((tx) =>
        this.recordForPerson(tx, person, 'person.sign_in_refused', 'anonymous', request.requestId, {
          reason: { before: null, after: refusal },
          ip: { before: null, after: request.ip },
        }),
      );
      return;
    }
    const secret = newBrowserSecret();
    const expiresAt = await this.ds.transaction(async (tx) => {
      const expires = await this.people.insertSignInLink(
        person.userId,
        hashBrowserSecret(secret),
        safeReturnPath(request.returnTo),
        this.config.signInLinkTtlSeconds,
        tx,
      );
      await this.recordForPerson(
        tx,
        person,
        'person.sign_in_link_sent',
        'anonymous',
        request.requestId,
        { ip: { before: null, after: request.ip } },
      );
      return expires;
    });
    await this.mailer.deliver({
      to: person.email,
      subject: 'Your sign-in link',
      text: signInMailText(person, this.urlFor(secret), expiresAt),
    });
  }

  private async recordRefusal(
    userId: string,
    reason: RefusalReason,
    requestId: string | null,
  ): Promise<void> {
    const person = await this.identity.findPersonById(userId);
    if (person === undefined) return;
    await this.ds.transaction((tx) =>
      this.recordForPerson(tx, person, 'person.sign_in_refused', 'anonymous', requestId, {
        reason: { before: null, after: reason },
      }),
    );
  }

  /**
   * One event in each organisation the person belongs to (active or not): each has a stake in
   * who gets in as its member, and none learns about the others.
   */
  private async recordForPerson(
    tx: EntityManager,
    person: Person,
    action: 'person.signed_in' | 'person.sign_in_link_sent' | 'person.sign_in_refused',
    actorType: 'person' | 'anonymous',
    requestId: string | null,
    changes: AuditChanges,
  ): Promise<void> {
    for (const m of person.memberships) {
      await this.audit.record(
        tx,
        {
          action,
          resourceType: 'person',
          resourceId: person.userId,
          resourceLabel: person.email,
          changes,
        },
        this.audit.signInPageActor(m.organizationId, actorType, person, requestId),
      );
    }
  }

  private urlFor(secret: string): string {
    return `${this.config.baseUrl}/signin/link?token=${secret}`;
  }
}

/** The quota key of an address: its digest (the store never holds the address itself). */
function addressKey(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
}

function signInMailText(person: Person, url: string, expiresAt: Date): string {
  return [
    `Hello ${person.name},`,
    '',
    'Open this link to sign in to the platform (it works once):',
    '',
    url,
    '',
    `It expires at ${expiresAt.toISOString()}. If you did not ask for it, ignore this message.`,
  ].join('\n');
}
