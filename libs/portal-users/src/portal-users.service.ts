import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AuditTrail, auditedFields } from '@app/audit-trail';
import { AppConfig } from '@app/config';
import { DomainError } from '@app/errors';
import { IdentityRepository, RequestContext } from '@app/identity';
import { MAIL_TRANSPORT, type MailTransport } from '@app/mail';
import { readNewestFirstPage, responseFields, type Page, type Plain } from '@app/rest-contract';
import {
  hashInvitationToken,
  INVITATION_TTL_MS,
  looksLikeInvitationToken,
  newInvitationToken,
} from './invitation-token.js';
import { invitationMail } from './invitation-mail.js';
import type { InvitationView } from './invitation-page.js';
import {
  PortalUserDto,
  type AcceptedInvitationDto,
  type CreatePortalUserDto,
  type DeletedPortalUserDto,
  type ListPortalUsersQueryDto,
  type UpdatePortalUserDto,
} from './portal-user.dto.js';
import {
  PortalUsersRepository,
  type PortalUserRow,
  type PortalUserValues,
} from './portal-users.repository.js';

const AUDITED = auditedFields('email', 'name', 'external_id', 'account_id', 'status');

/**
 * Portal users of the caller's organisation and their lifecycle: invited → active (the person
 * accepts the e-mailed invitation) → inactive ⇄ active.
 *
 * Every write is one transaction holding the change, its audit event(s) and, for invitations, the
 * mail: the mail is sent last, and if the mail service refuses or times out the transaction rolls
 * back and the caller gets 502 EXTERNAL_SERVICE_ERROR — no portal user is left created without
 * its invitation, and no invitation is recorded as sent when it was not.
 */
@Injectable()
export class PortalUsersService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly users: PortalUsersRepository,
    private readonly audit: AuditTrail,
    private readonly context: RequestContext,
    private readonly identity: IdentityRepository,
    private readonly config: AppConfig,
    @Inject(MAIL_TRANSPORT) private readonly mail: MailTransport,
  ) {}

  list(query: ListPortalUsersQueryDto): Promise<Page<Plain<PortalUserDto>>> {
    return readNewestFirstPage(
      query,
      (window) =>
        this.users.list(this.context.organizationId, {
          status: query.status,
          accountId: query.account_id,
          q: query.q,
          ...window,
        }),
      toPortalUserDto,
    );
  }

  async get(id: string): Promise<Plain<PortalUserDto>> {
    const row = await this.users.findById(this.context.organizationId, id);
    if (row === undefined) throw notFound();
    return toPortalUserDto(row);
  }

  async create(input: CreatePortalUserDto): Promise<Plain<PortalUserDto>> {
    const organizationId = this.context.organizationId;
    const sendInvitation = input.send_invitation ?? true;
    const organizationName = sendInvitation ? await this.organizationName(organizationId) : '';
    return this.ds.transaction(async (tx) => {
      let row = await this.users.insert(tx, organizationId, {
        email: input.email,
        name: input.name,
        external_id: input.external_id ?? null,
        account_id: input.account_id ?? null,
      });
      await this.audit.record(tx, {
        action: 'portal_user.created',
        resourceType: 'portal_user',
        resourceId: row.id,
        resourceLabel: row.email,
        changes: AUDITED.created(row),
      });
      if (sendInvitation) row = await this.sendInvitation(tx, row, organizationName);
      return toPortalUserDto(row);
    });
  }

  update(id: string, input: UpdatePortalUserDto): Promise<Plain<PortalUserDto>> {
    const organizationId = this.context.organizationId;
    return this.ds.transaction(async (tx) => {
      const before = await this.lock(tx, id);
      const wanted: PortalUserValues = {
        email: input.email ?? before.email,
        name: input.name ?? before.name,
        external_id: input.external_id === undefined ? before.external_id : input.external_id,
        account_id: input.account_id === undefined ? before.account_id : input.account_id,
      };
      // An update leaves the status as it is (only the lifecycle routes move it).
      const changes = AUDITED.between(before, { ...before, ...wanted });
      if (changes === undefined) return toPortalUserDto(before);
      // A pending invitation was sent to the old address: it must not activate the new one.
      const voidInvitation = changes.email !== undefined && before.status === 'invited';
      const after = await this.users.update(tx, organizationId, id, wanted, voidInvitation);
      if (after === undefined) throw notFound();
      if (voidInvitation && before.invitation_expires_at !== null) {
        changes.invitation_expires_at = {
          before: before.invitation_expires_at.toISOString(),
          after: null,
        };
      }
      await this.audit.record(tx, {
        action: 'portal_user.updated',
        resourceType: 'portal_user',
        resourceId: id,
        resourceLabel: after.email,
        changes,
      });
      return toPortalUserDto(after);
    });
  }

  /** Sends a new invitation (the previous link stops working). Only for invited portal users. */
  async resendInvitation(id: string): Promise<Plain<PortalUserDto>> {
    const organizationName = await this.organizationName(this.context.organizationId);
    return this.ds.transaction(async (tx) => {
      const row = await this.lock(tx, id);
      if (row.status !== 'invited') {
        throw new DomainError(
          'BAD_REQUEST',
          row.status === 'active'
            ? 'The portal user is already active; there is no invitation to resend'
            : 'The portal user is inactive (they accepted an invitation before); activate them instead',
          { status: row.status },
        );
      }
      return toPortalUserDto(await this.sendInvitation(tx, row, organizationName));
    });
  }

  /** active → inactive. Already inactive: no change. Never active (invited): 403 FORBIDDEN. */
  deactivate(id: string): Promise<Plain<PortalUserDto>> {
    return this.ds.transaction(async (tx) => {
      const row = await this.lock(tx, id);
      if (row.status === 'inactive') return toPortalUserDto(row);
      if (row.status === 'invited') {
        throw new DomainError(
          'FORBIDDEN',
          'The portal user has not accepted their invitation yet, so there is nothing to deactivate; delete them instead',
          { status: row.status },
        );
      }
      return toPortalUserDto(await this.transition(tx, row, 'inactive', 'portal_user.deactivated'));
    });
  }

  /** inactive → active. Already active: no change. Invited: 403 FORBIDDEN (only accepting activates). */
  activate(id: string): Promise<Plain<PortalUserDto>> {
    return this.ds.transaction(async (tx) => {
      const row = await this.lock(tx, id);
      if (row.status === 'active') return toPortalUserDto(row);
      if (row.status === 'invited') {
        throw new DomainError(
          'FORBIDDEN',
          'The portal user becomes active by accepting their invitation; resend the invitation instead',
          { status: row.status },
        );
      }
      return toPortalUserDto(await this.transition(tx, row, 'active', 'portal_user.activated'));
    });
  }

  delete(id: string): Promise<Plain<DeletedPortalUserDto>> {
    const organizationId = this.context.organizationId;
    return this.ds.transaction(async (tx) => {
      const before = await this.users.delete(tx, organizationId, id);
      if (before === undefined) throw notFound();
      await this.audit.record(tx, {
        action: 'portal_user.deleted',
        resourceType: 'portal_user',
        resourceId: id,
        resourceLabel: before.email,
        changes: AUDITED.deleted(before),
      });
      return { id, deleted: true as const };
    });
  }

  /**
   * Public: the invitation secret from the e-mail makes its portal user active, once. Unknown,
   * used and expired secrets are all 404 (the caller learns nothing about which).
   */
  async acceptInvitation(token: string): Promise<Plain<AcceptedInvitationDto>> {
    const row = await this.consumeInvitation(token);
    if (row === undefined) throw invitationNotFound();
    return {
      portal_user_id: row.id,
      email: row.email,
      name: row.name,
      status: 'active' as const,
    };
  }

  /**
   * Public, read-only: what a live invitation link is for (the invitation page shows it), or
   * `undefined` when the link no longer works (unknown, used, replaced or expired alike).
   */
  async findInvitation(token: string): Promise<InvitationView | undefined> {
    if (!looksLikeInvitationToken(token)) return undefined;
    const row = await this.users.findByLiveInvitation(hashInvitationToken(token));
    if (row === undefined || row.invitation_expires_at === null) return undefined;
    return {
      organizationName: await this.organizationName(row.organization_id),
      email: row.email,
      name: row.name,
      expiresAt: row.invitation_expires_at,
    };
  }

  /** The invitation page's accept button: like {@link acceptInvitation}, `undefined` when gone. */
  async acceptInvitationFromPage(
    token: string,
  ): Promise<{ organizationName: string; email: string } | undefined> {
    const row = await this.consumeInvitation(token);
    if (row === undefined) return undefined;
    return { organizationName: await this.organizationName(row.organization_id), email: row.email };
  }

  /** Where an invitation e-mail links: the portal's page when configured, else this server's. */
  invitationUrl(token: string): string {
    const template = this.config.portalInvitationUrl;
    return template === undefined
      ? `${this.config.baseUrl}/v1/portal-invitations/${token}/accept`
      : template.replaceAll('{token}', token);
  }

  /** Consumes a live invitation once (invited → active) and audits it; `undefined` if it is gone. */
  private async consumeInvitation(token: string): Promise<PortalUserRow | undefined> {
    if (!looksLikeInvitationToken(token)) return undefined;
    return this.ds.transaction(async (tx) => {
      const row = await this.users.acceptInvitation(tx, hashInvitationToken(token));
      if (row === undefined) return undefined;
      await this.audit.record(
        tx,
        {
          action: 'portal_user.invitation_accepted',
          resourceType: 'portal_user',
          resourceId: row.id,
          resourceLabel: row.email,
          changes: { status: { before: 'invited', after: 'active' } },
        },
        this.audit.anonymousActor(row.organization_id, 'portal_user', row),
      );
      return row;
    });
  }

  private async sendInvitation(
    tx: EntityManager,
    row: PortalUserRow,
    organizationName: string,
  ): Promise<PortalUserRow> {
    const token = newInvitationToken();
    const expiresAt = new Date(Date.now() + INVITATION_TTL_MS);
    const after = await this.users.setInvitation(
      tx,
      row.organization_id,
      row.id,
      hashInvitationToken(token),
      expiresAt,
    );
    if (after === undefined) throw notFound();
    await this.audit.record(tx, {
      action: 'portal_user.invitation_sent',
      resourceType: 'portal_user',
      resourceId: row.id,
      resourceLabel: after.email,
      changes: {
        invitation_sent_at: {
          before: row.invitation_sent_at?.toISOString() ?? null,
          after: after.invitation_sent_at?.toISOString() ?? null,
        },
        invitation_expires_at: {
          before: row.invitation_expires_at?.toISOString() ?? null,
          after: expiresAt.toISOString(),
        },
      },
    });
    // Last: if the mail service fails, everything above rolls back with the transaction.
    await this.mail.send(
      tx,
      invitationMail({
        organizationId: row.organization_id,
        organizationName,
        to: after.email,
        name: after.name,
        acceptUrl: this.invitationUrl(token),
        expiresAt,
      }),
    );
    return after;
  }

  private async transition(
    tx: EntityManager,
    row: PortalUserRow,
    to: 'active' | 'inactive',
    action: 'portal_user.activated' | 'portal_user.deactivated',
  ): Promise<PortalUserRow> {
    const after = await this.users.transition(tx, row.organization_id, row.id, row.status, to);
    if (after === undefined) throw notFound();
    await this.audit.record(tx, {
      action,
      resourceType: 'portal_user',
      resourceId: row.id,
      resourceLabel: after.email,
      changes: { status: { before: row.status, after: to } },
    });
    return after;
  }

  private async lock(tx: EntityManager, id: string): Promise<PortalUserRow> {
    const row = await this.users.lockById(tx, this.context.organizationId, id);
    if (row === undefined) throw notFound();
    return row;
  }

  private async organizationName(organizationId: string): Promise<string> {
    return (await this.identity.findOrganization(organizationId))?.name ?? 'Your organisation';
  }
}

function notFound(): DomainError {
  return DomainError.notFound('Portal user');
}

function invitationNotFound(): DomainError {
  return new DomainError('NOT_FOUND', 'Invitation not found, already used or expired');
}

function toPortalUserDto(r: PortalUserRow): Plain<PortalUserDto> {
  return responseFields(PortalUserDto, r);
}
