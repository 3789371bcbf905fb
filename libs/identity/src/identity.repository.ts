import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import type { MembershipStatus, Permission, Role, TokenKind } from './access-vocabulary.js';
import { ApiTokenEntity, MembershipEntity, OrganizationEntity, UserEntity } from './entities.js';

export interface MemberView {
  membershipId: string;
  userId: string;
  email: string;
  name: string;
  role: Role;
  status: MembershipStatus;
  permissions: Permission[];
  createdAt: Date;
  updatedAt: Date;
}

/** Organisations, people and memberships. */
@Injectable()
export class IdentityRepository {
  constructor(
    @InjectRepository(OrganizationEntity) private readonly orgs: Repository<OrganizationEntity>,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(MembershipEntity) private readonly memberships: Repository<MembershipEntity>,
  ) {}

  createOrganization(slug: string, name: string): Promise<OrganizationEntity> {
    return this.orgs.save(this.orgs.create({ slug, name }));
  }

  findOrganizationBySlug(slug: string): Promise<OrganizationEntity | null> {
    return this.orgs.findOne({ where: { slug } });
  }

  findOrganization(id: string): Promise<OrganizationEntity | null> {
    return this.orgs.findOne({ where: { id } });
  }

  createUser(email: string, name: string): Promise<UserEntity> {
    return this.users.save(this.users.create({ email, name }));
  }

  addMembership(
    organizationId: string,
    userId: string,
    role: Role,
    permissions: readonly Permission[],
    status: MembershipStatus = 'active',
  ): Promise<MembershipEntity> {
    return this.memberships.save(
      this.memberships.create({
        organizationId,
        userId,
        role,
        permissions: [...permissions],
        status,
      }),
    );
  }

  async removeMembership(organizationId: string, userId: string): Promise<void> {
    await this.memberships.delete({ organizationId, userId });
  }

  async listMembers(organizationId: string): Promise<MemberView[]> {
    const rows = await this.memberships
      .createQueryBuilder('m')
      .innerJoin(UserEntity, 'u', 'u.id = m.user_id')
      .select([
        'm.id AS "membershipId"',
        'm.user_id AS "userId"',
        'u.email AS email',
        'u.name AS name',
        'm.role AS role',
        'm.status AS status',
        'm.permissions AS permissions',
        'm.created_at AS "createdAt"',
        'm.updated_at AS "updatedAt"',
      ])
      .where('m.organization_id = :organizationId', { organizationId })
      .orderBy('u.email', 'ASC')
      .getRawMany<MemberView>();
    return rows;
  }

  async findMember(organizationId: string, userId: string): Promise<MemberView | undefined> {
    return (await this.listMembers(organizationId)).find((m) => m.userId === userId);
  }

  /** Updates a member's status and/or permissions inside the caller's transaction. */
  async updateMembership(
    manager: EntityManager,
    organizationId: string,
    userId: string,
    change: { status?: MembershipStatus; permissions?: Permission[]; role?: Role },
  ): Promise<boolean> {
    const r = await manager.update(MembershipEntity, { organizationId, userId }, change);
    return (r.affected ?? 0) === 1;
  }

  /**
   * Names and e-mails of people by id, for views that store only ids (the MCP history). Callers
   * pass ids read from their own organisation's rows.
   */
  async describePeople(
    ids: readonly string[],
  ): Promise<{ id: string; name: string; email: string }[]> {
    if (ids.length === 0) return [];
    return this.users
      .createQueryBuilder('u')
      .select(['u.id AS id', 'u.name AS name', 'u.email AS email'])
      .where('u.id = ANY(CAST(:ids AS uuid[]))', { ids: [...ids] })
      .orderBy('u.name', 'ASC')
      .getRawMany<{ id: string; name: string; email: string }>();
  }

  /** Names and kinds of an organisation's tokens by id (never anything secret). */
  async describeTokens(
    organizationId: string,
    ids: readonly string[],
  ): Promise<{ id: string; name: string; kind: TokenKind }[]> {
    if (ids.length === 0) return [];
    return this.users.manager
      .createQueryBuilder(ApiTokenEntity, 't')
      .select(['t.id AS id', 't.name AS name', 't.kind AS kind'])
      .where('t.organization_id = :organizationId AND t.id = ANY(CAST(:ids AS uuid[]))', {
        organizationId,
        ids: [...ids],
      })
      .orderBy('t.name', 'ASC')
      .getRawMany<{ id: string; name: string; kind: TokenKind }>();
  }
}
