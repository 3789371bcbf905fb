import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AuditTrail, auditedFields, type AuditActor } from '@app/audit-trail';
import { isUniqueViolation } from '@app/database';
import { DomainError } from '@app/errors';
import { ROLE_PERMISSIONS, SCOPES, type Role, type Scope } from '@app/access-vocabulary';
import {
  IdentityRepository,
  MembershipsRepository,
  TokensService,
  type ApiToken,
} from '@app/identity';
import { SignInLinkService } from '@app/oauth-server';
import { tokenCreatedEvent } from '@app/org-admin';

export interface CreatedOrganization {
  organization: { id: string; slug: string; name: string };
  owner: { id: string; email: string; name: string; created: boolean };
  token: { id: string; name: string; secret: string; expires_at: string | null };
  sign_in_link: { url: string; expires_at: string };
}

export interface AddedUser {
  organization: { id: string; slug: string };
  user: { id: string; email: string; name: string; created: boolean; role: Role };
  sign_in_link: { url: string; expires_at: string };
}

export interface CreatedToken {
  token: { id: string; name: string; secret: string; scopes: Scope[]; expires_at: string | null };
}

/**
 * What the `admin` command does, through the identity and sign-in services (no SQL of its own):
 * the first organisation and its owner in production, people added to it, tokens for scripts.
 * Each command is one transaction; the secrets it returns are shown once and stored hashed.
 * Every write leaves its audit events in that transaction, as the REST API's do; the actor is the
 * command (`admin_command`, channel `cli`), since no person or token made the change.
 * Inside a transaction every statement goes through its manager (`tx`): the command runs on one
 * connection (see `admin.ts`), so a statement on another would wait for that connection until the
 * connect timeout, on every engine.
 */
@Injectable()
export class OrganizationSetup {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly identity: IdentityRepository,
    private readonly memberships: MembershipsRepository,
    private readonly tokens: TokensService,
    private readonly signInLinks: SignInLinkService,
    private readonly audit: AuditTrail,
  ) {}

  async createOrganization(input: {
    name: string;
    slug: string;
    ownerEmail: string;
    ownerName: string;
    tokenName: string;
    tokenExpiresAt: Date | null;
  }): Promise<CreatedOrganization> {
    const result = await this.ds.transaction(async (tx) => {
      let org;
      try {
        org = await this.identity.createOrganization(input.slug, input.name, tx);
      } catch (err) {
        if (isUniqueViolation(err)) {
          throw new DomainError(
            'CONFLICT',
            `An organisation with slug "${input.slug}" already exists; nothing was changed`,
            { field: 'slug' },
          );
        }
        throw err;
      }
      const existing = await this.identity.findUserByEmail(input.ownerEmail, tx);
      const owner =
        existing ?? (await this.identity.createUser(input.ownerEmail, input.ownerName, tx));
      await this.memberships.add(org.id, owner.id, 'owner', ROLE_PERMISSIONS.owner, 'active', tx);
      const issued = await this.tokens.issue(
        {
          organizationId: org.id,
          userId: owner.id,
          kind: 'personal',
          name: input.tokenName,
          scopes: SCOPES,
          expiresAt: input.tokenExpiresAt,
        },
        tx,
      );
      const actor = this.audit.adminCommandActor(org.id, 'org:create');
      await this.audit.record(
        tx,
        {
          action: 'organization.created',
          resourceType: 'organization',
          resourceId: org.id,
          resourceLabel: org.name,
          changes: auditedFields('slug', 'name').created(org),
        },
        actor,
      );
      await this.recordMemberAdded(tx, actor, owner, 'owner');
      await this.recordTokenCreated(tx, actor, issued.token);
      return { org, owner, created: existing === null, issued };
    });
    const link = await this.signInLinks.issue(result.owner.email);
    return {
      organization: { id: result.org.id, slug: result.org.slug, name: result.org.name },
      owner: {
        id: result.owner.id,
        email: result.owner.email,
        name: result.owner.name,
        created: result.created,
      },
      token: {
        id: result.issued.token.id,
        name: result.issued.token.name,
        secret: result.issued.secret,
        expires_at: result.issued.token.expiresAt?.toISOString() ?? null,
      },
      sign_in_link: { url: link.url, expires_at: link.expiresAt.toISOString() },
    };
  }

  async addUser(input: {
    organizationSlug: string;
    email: string;
    name: string;
    role: Exclude<Role, 'custom'>;
  }): Promise<AddedUser> {
    // Before the transaction: every statement inside it goes through `tx`, on its one connection.
    const org = await this.organization(input.organizationSlug);
    const result = await this.ds.transaction(async (tx) => {
      const existing = await this.identity.findUserByEmail(input.email, tx);
      if (existing !== null && (await this.memberships.find(org.id, existing.id, tx))) {
        throw new DomainError(
          'CONFLICT',
          `${existing.email} is already a member of "${org.slug}"; change their role with PATCH /v1/members`,
          { field: 'email' },
        );
      }
      const user = existing ?? (await this.identity.createUser(input.email, input.name, tx));
      await this.memberships.add(
        org.id,
        user.id,
        input.role,
        ROLE_PERMISSIONS[input.role],
        'active',
        tx,
      );
      const actor = this.audit.adminCommandActor(org.id, 'user:add');
      await this.recordMemberAdded(tx, actor, user, input.role);
      return { org, user, created: existing === null };
    });
    const link = await this.signInLinks.issue(result.user.email);
    return {
      organization: { id: result.org.id, slug: result.org.slug },
      user: {
        id: result.user.id,
        email: result.user.email,
        name: result.user.name,
        created: result.created,
        role: input.role,
      },
      sign_in_link: { url: link.url, expires_at: link.expiresAt.toISOString() },
    };
  }

  async createToken(input: {
    organizationSlug: string;
    email: string;
    name: string;
    scopes: readonly Scope[];
    expiresAt: Date | null;
  }): Promise<CreatedToken> {
    const org = await this.organization(input.organizationSlug);
    const user = await this.identity.findUserByEmail(input.email);
    const membership = user === null ? null : await this.memberships.find(org.id, user.id);
    if (user === null || membership === null) {
      throw new DomainError('NOT_FOUND', `${input.email} is not a member of "${org.slug}"`);
    }
    const issued = await this.ds.transaction(async (tx) => {
      const created = await this.tokens.issue(
        {
          organizationId: org.id,
          userId: user.id,
          kind: 'personal',
          name: input.name,
          scopes: input.scopes,
          expiresAt: input.expiresAt,
        },
        tx,
      );
      const actor = this.audit.adminCommandActor(org.id, 'token:create');
      await this.recordTokenCreated(tx, actor, created.token);
      return created;
    });
    return {
      token: {
        id: issued.token.id,
        name: issued.token.name,
        secret: issued.secret,
        scopes: [...issued.token.scopes],
        expires_at: issued.token.expiresAt?.toISOString() ?? null,
      },
    };
  }

  private recordMemberAdded(
    tx: EntityManager,
    actor: AuditActor,
    user: { id: string; email: string; name: string },
    role: Role,
  ): Promise<void> {
    return this.audit.record(
      tx,
      {
        action: 'member.added',
        resourceType: 'member',
        resourceId: user.id,
        resourceLabel: user.email,
        changes: auditedFields('email', 'name', 'role', 'status').created({
          ...user,
          role,
          status: 'active',
        }),
      },
      actor,
    );
  }

  /** As `POST /v1/tokens` records it: never the secret. */
  private recordTokenCreated(tx: EntityManager, actor: AuditActor, token: ApiToken): Promise<void> {
    return this.audit.record(tx, tokenCreatedEvent(token), actor);
  }

  /**
   * `audit:export`: the organisation's events of `[since, until)`, oldest first, one JSON line
   * each, exactly as `GET /v1/audit-events/export` pages them.
   */
  async auditExport(input: {
    organizationSlug: string;
    since?: string;
    until?: string;
  }): Promise<AsyncGenerator<string>> {
    const org = await this.organization(input.organizationSlug);
    return this.audit.exportLines(org.id, { since: input.since, until: input.until });
  }

  private async organization(slug: string): Promise<{ id: string; slug: string }> {
    const org = await this.identity.findOrganizationBySlug(slug);
    if (org === null) throw new DomainError('NOT_FOUND', `No organisation with slug "${slug}"`);
    return org;
  }
}
