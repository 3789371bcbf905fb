import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AuditTrail, auditedFields } from '@app/audit-trail';
import { DomainError } from '@app/errors';
import { RequestContext } from '@app/identity';
import { readNewestFirstPage, responseFields, type Page, type Plain } from '@app/rest-contract';
import {
  AccountDto,
  type CreateAccountDto,
  type DeletedAccountDto,
  type ListAccountsQueryDto,
  type UpdateAccountDto,
} from './account.dto.js';
import { AccountsRepository, type AccountRow, type AccountValues } from './accounts.repository.js';

const AUDITED = auditedFields('name', 'external_id', 'tax_id');

/**
 * Customer accounts of the caller's organisation. Every write runs in one transaction with its
 * audit event. Records of another organisation are indistinguishable from missing ones (404).
 */
@Injectable()
export class AccountsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly audit: AuditTrail,
    private readonly context: RequestContext,
  ) {}

  list(query: ListAccountsQueryDto): Promise<Page<Plain<AccountDto>>> {
    return readNewestFirstPage(
      query,
      (window) => this.accounts.list(this.context.organizationId, { q: query.q, ...window }),
      toAccountDto,
    );
  }

  async get(id: string): Promise<Plain<AccountDto>> {
    const row = await this.accounts.findById(this.context.organizationId, id);
    if (row === undefined) throw notFound();
    return toAccountDto(row);
  }

  create(input: CreateAccountDto): Promise<Plain<AccountDto>> {
    const organizationId = this.context.organizationId;
    return this.ds.transaction(async (tx) => {
      const row = await this.accounts.insert(tx, organizationId, {
        name: input.name,
        external_id: input.external_id ?? null,
        tax_id: input.tax_id ?? null,
      });
      await this.audit.record(tx, {
        action: 'account.created',
        resourceType: 'account',
        resourceId: row.id,
        resourceLabel: row.name,
        changes: AUDITED.created(row),
      });
      return toAccountDto(row);
    });
  }

  update(id: string, input: UpdateAccountDto): Promise<Plain<AccountDto>> {
    const organizationId = this.context.organizationId;
    return this.ds.transaction(async (tx) => {
      const before = await this.accounts.lockById(tx, organizationId, id);
      if (before === undefined) throw notFound();
      const wanted: AccountValues = {
        name: input.name ?? before.name,
        external_id: input.external_id === undefined ? before.external_id : input.external_id,
        tax_id: input.tax_id === undefined ? before.tax_id : input.tax_id,
      };
      const changes = AUDITED.between(before, wanted);
      if (changes === undefined) return toAccountDto(before);
      const after = await this.accounts.update(tx, organizationId, id, wanted);
      await this.audit.record(tx, {
        action: 'account.updated',
        resourceType: 'account',
        resourceId: id,
        resourceLabel: after.name,
        changes,
      });
      return toAccountDto(after);
    });
  }

  /** Refused (403 FORBIDDEN) while active portal users belong to it; the others are detached. */
  delete(id: string): Promise<Plain<DeletedAccountDto>> {
    const organizationId = this.context.organizationId;
    return this.ds.transaction(async (tx) => {
      const before = await this.accounts.lockById(tx, organizationId, id);
      if (before === undefined) throw notFound();
      const users = await this.accounts.lockPortalUsersOf(tx, organizationId, id);
      const active = users.filter((u) => u.status === 'active').length;
      if (active > 0) {
        throw new DomainError(
          'FORBIDDEN',
          `The account still has ${active} active portal user(s); deactivate them or move them to another account first`,
          { active_portal_users: active },
        );
      }
      await this.accounts.delete(tx, organizationId, id);
      const changes = AUDITED.deleted(before);
      if (users.length > 0) changes.portal_user_ids = { before: users.map((u) => u.id), after: [] };
      await this.audit.record(tx, {
        action: 'account.deleted',
        resourceType: 'account',
        resourceId: id,
        resourceLabel: before.name,
        changes,
      });
      return { id, deleted: true as const };
    });
  }
}

function notFound(): DomainError {
  return DomainError.notFound('Account');
}

function toAccountDto(r: AccountRow): Plain<AccountDto> {
  return responseFields(AccountDto, r);
}
