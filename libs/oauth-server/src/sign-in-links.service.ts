import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { DomainError } from '@app/errors';
import { MAIL_TRANSPORT, type MailTransport } from '@app/mail';
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

/**
 * One-time sign-in links: a random secret in a URL, its hash a row of `sign_in_links`, used at
 * most once (a conditional UPDATE decides the single winner across replicas) before it expires.
 */
@Injectable()
export class SignInLinkService {
  private readonly logger = new Logger(SignInLinkService.name);

  constructor(
    private readonly config: AppConfig,
    private readonly people: PeopleRepository,
    private readonly identity: IdentityRepository,
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(MAIL_TRANSPORT) private readonly mail: MailTransport,
  ) {}

  /**
   * A link for the person with this e-mail, returned to the caller (the admin command prints it).
   * `NOT_FOUND` when no person has this address. `returnTo`: a path on this server to land on.
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
   * E-mails a link to this address when it belongs to a person with an active membership, and
   * does nothing otherwise: the caller cannot tell which (no account discovery through this form).
   * The mail goes through the mail module (SMTP, or the outbox of the person's first organisation).
   */
  async send(email: string, returnTo?: string): Promise<void> {
    const person = await this.identity.findPersonByEmail(email);
    const membership = person?.memberships.find((m) => m.status === 'active');
    if (person === undefined || membership === undefined) {
      this.logger.log('Sign-in link requested for an address with no active membership');
      return;
    }
    const secret = newBrowserSecret();
    await this.ds.transaction(async (tx) => {
      const expiresAt = await this.people.insertSignInLink(
        person.userId,
        hashBrowserSecret(secret),
        safeReturnPath(returnTo),
        this.config.signInLinkTtlSeconds,
        tx,
      );
      await this.mail.send(tx, {
        organizationId: membership.organizationId,
        to: person.email,
        subject: 'Your sign-in link',
        text: signInMailText(person, this.urlFor(secret), expiresAt),
      });
    });
  }

  /** Uses a link: the first use wins; a second use, or a use after expiry, is refused. */
  async consume(secret: string): Promise<SignInLinkUse> {
    const hash = hashBrowserSecret(secret);
    const used = await this.people.consumeSignInLink(hash);
    if (used !== undefined)
      return { ok: true, userId: used.user_id, returnTo: safeReturnPath(used.return_to) };
    const state = await this.people.describeSignInLink(hash);
    return { ok: false, reason: state === 'valid' ? 'used' : state };
  }

  private urlFor(secret: string): string {
    return `${this.config.baseUrl}/signin/link?token=${secret}`;
  }
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
