import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AuditTrail, auditedFields } from '@app/audit-trail';
import { DomainError } from '@app/errors';
import { PERMISSIONS, ROLE_PERMISSIONS, type Permission } from '@app/access-vocabulary';
import {
  MembershipsRepository,
  RequestContext,
  type MemberRow,
  type MembershipValues,
} from '@app/identity';
import { pageRequest, responseFields, toPage, type Page, type Plain } from '@app/rest-contract';
import { MemberDto, type ListMembersQueryDto, type UpdateMemberDto } from './member.dto.js';

/**
 * Members of the caller's organisation: list, and change a membership's status, role or
 * permissions (with its audit event, in one transaction). The organisation always keeps at least
 * one active member holding `admin`, so it can never lock itself out.
 */
@Injectable()
export class MembersService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly members: MembershipsRepository,
    private readonly audit: AuditTrail,
    private readonly context: RequestContext,
  ) {}

  async list(query: ListMembersQueryDto): Promise<Page<Plain<MemberDto>>> {
    const { limit, after, take } = pageRequest(query, 'text');
    const rows = await this.members.list(this.context.organizationId, {
      status: query.status,
      after,
      take,
    });
    return toPage(rows, limit, (r) => [r.sort_email, r.user_id], toMemberDto);
  }

  update(userId: string, input: UpdateMemberDto): Promise<Plain<MemberDto>> {
    if (input.permissions !== undefined && input.role !== undefined && input.role !== 'custom') {
      throw DomainError.validation(
        [{ field: 'role', message: 'must be custom (or left out) when permissions are given' }],
        'Validation failed: role must be custom (or left out) when permissions are given',
      );
    }
    const organizationId = this.context.organizationId;
    return this.ds.transaction(async (tx) => {
      const admins = await this.members.lockActiveAdmins(tx, organizationId);
      const before = await this.members.lockMember(tx, organizationId, userId);
      if (before === undefined) throw DomainError.notFound('Member');
      const wanted = desired(before, input);
      const current = { ...before, permissions: canonical(before.permissions) };
      const changes = auditedFields('status', 'role', 'permissions').between(current, wanted);
      if (changes === undefined) return toMemberDto(before);

      const stillAdmin = wanted.status === 'active' && wanted.permissions.includes('admin');
      if (!stillAdmin && admins.every((id) => id === userId)) {
        throw new DomainError(
          'FORBIDDEN',
          'This change would leave the organisation without an active admin; make someone else admin first',
          { reason: 'last_admin' },
        );
      }
      await this.members.update(tx, organizationId, userId, wanted);
      await this.audit.record(tx, {
        action: 'member.updated',
        resourceType: 'member',
        resourceId: userId,
        resourceLabel: before.email,
        changes,
      });
      const after = await this.members.lockMember(tx, organizationId, userId);
      return toMemberDto(after!);
    });
  }
}

/** The membership after the change: a preset role brings its permissions; explicit permissions make it custom. */
function desired(before: MemberRow, input: UpdateMemberDto): MembershipValues {
  const status = input.status ?? before.status;
  if (input.permissions !== undefined)
    return { status, role: 'custom', permissions: canonical(input.permissions) };
  if (input.role !== undefined && input.role !== 'custom') {
    return { status, role: input.role, permissions: canonical(ROLE_PERMISSIONS[input.role]) };
  }
  return { status, role: input.role ?? before.role, permissions: canonical(before.permissions) };
}

/** Permissions in vocabulary order, without repeats (so equal sets compare equal). */
function canonical(permissions: readonly Permission[]): Permission[] {
  return PERMISSIONS.filter((p) => permissions.includes(p));
}

function toMemberDto(r: MemberRow): Plain<MemberDto> {
  return responseFields(MemberDto, { ...r, permissions: canonical(r.permissions) });
}
