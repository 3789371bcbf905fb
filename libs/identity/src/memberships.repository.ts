import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { MembershipStatus, Permission, Role } from '@app/access-vocabulary';
import { camelCasedRows, firstRowAs, returnedRow } from '@app/database';
import type { Membership } from './identity.types.js';

interface MembershipRow {
  id: string;
  organization_id: string;
  user_id: string;
  role: Role;
  status: MembershipStatus;
  permissions: Permission[];
  created_at: Date;
  updated_at: Date;
}

/** A member as administrators see one: the membership with the person's e-mail and name. */
export interface MemberRow {
  user_id: string;
  email: string;
  name: string;
  role: Role;
  status: MembershipStatus;
  permissions: Permission[];
  created_at: Date;
  updated_at: Date;
  /** Keyset position: lower(email). */
  sort_email: string;
}

export interface MembershipValues {
  role: Role;
  status: MembershipStatus;
  permissions: Permission[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const MEMBERSHIP_COLUMNS =
  'id, organization_id, user_id, role, status, permissions, created_at, updated_at';
const toMembership: (r: MembershipRow) => Membership = camelCasedRows(MEMBERSHIP_COLUMNS);

const MEMBER_COLUMNS = `m.user_id, u.email, u.name, m.role, m.status, m.permissions, m.created_at, m.updated_at,
  lower(u.email) AS sort_email`;

/**
 * All SQL about `memberships`. `tx`: run inside the caller's transaction; the methods that lock
 * rows need one.
 */
@Injectable()
export class MembershipsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async find(
    organizationId: string,
    userId: string,
    tx?: EntityManager,
  ): Promise<Membership | null> {
    const rows = await (tx ?? this.ds).query<MembershipRow[]>(
      `SELECT ${MEMBERSHIP_COLUMNS} FROM memberships WHERE organization_id = $1 AND user_id = $2`,
      [organizationId, userId],
    );
    return firstRowAs(rows, toMembership) ?? null;
  }

  async add(
    organizationId: string,
    userId: string,
    role: Role,
    permissions: readonly Permission[],
    status: MembershipStatus = 'active',
    tx?: EntityManager,
  ): Promise<Membership> {
    const rows = await (tx ?? this.ds).query<MembershipRow[]>(
      `INSERT INTO memberships (organization_id, user_id, role, status, permissions)
       VALUES ($1, $2, $3, $4, $5::text[]) RETURNING ${MEMBERSHIP_COLUMNS}`,
      [organizationId, userId, role, status, [...permissions]],
    );
    return toMembership(returnedRow(rows));
  }

  /** The person a membership belongs to (an OAuth account id is a membership id), or undefined. */
  async findPersonOfMembership(
    membershipId: string,
  ): Promise<{ userId: string; email: string; name: string } | undefined> {
    if (!UUID.test(membershipId)) return undefined;
    const rows = await this.ds.query<{ user_id: string; email: string; name: string }[]>(
      `SELECT u.id AS user_id, u.email, u.name FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.id = $1`,
      [membershipId],
    );
    const row = rows[0];
    return row === undefined
      ? undefined
      : { userId: row.user_id, email: row.email, name: row.name };
  }

  async remove(organizationId: string, userId: string): Promise<void> {
    await this.ds.query(`DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2`, [
      organizationId,
      userId,
    ]);
  }

  /** One page of the organisation's members, ordered by e-mail (keyset on lower(email), user id). */
  list(
    organizationId: string,
    f: { status?: MembershipStatus; after?: readonly string[]; take: number },
  ): Promise<MemberRow[]> {
    const params: unknown[] = [organizationId];
    const where = ['m.organization_id = $1'];
    if (f.status !== undefined) {
      params.push(f.status);
      where.push(`m.status = $${params.length}`);
    }
    if (f.after !== undefined) {
      params.push(f.after[0], f.after[1]);
      where.push(`(lower(u.email), m.user_id) > ($${params.length - 1}, $${params.length}::uuid)`);
    }
    params.push(f.take);
    return this.ds.query<MemberRow[]>(
      `SELECT ${MEMBER_COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE ${where.join(' AND ')} ORDER BY lower(u.email), m.user_id LIMIT $${params.length}`,
      params,
    );
  }

  /** The member, its membership row locked until `tx` ends. */
  async lockMember(
    tx: EntityManager,
    organizationId: string,
    userId: string,
  ): Promise<MemberRow | undefined> {
    const rows = await tx.query<MemberRow[]>(
      `SELECT ${MEMBER_COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.organization_id = $1 AND m.user_id = $2 FOR UPDATE OF m`,
      [organizationId, userId],
    );
    return rows[0];
  }

  /** The active members holding `admin`, with their e-mail and name (whom approvals are asked of). */
  activeAdmins(organizationId: string): Promise<MemberRow[]> {
    return this.ds.query<MemberRow[]>(
      `SELECT ${MEMBER_COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.organization_id = $1 AND m.status = 'active' AND 'admin' = ANY (m.permissions)
        ORDER BY lower(u.email), m.user_id`,
      [organizationId],
    );
  }

  /** Locks and returns the active members holding `admin`, so two demotions cannot both pass. */
  async lockActiveAdmins(tx: EntityManager, organizationId: string): Promise<string[]> {
    const rows = await tx.query<Array<{ user_id: string }>>(
      `SELECT user_id FROM memberships
        WHERE organization_id = $1 AND status = 'active' AND 'admin' = ANY (permissions)
        ORDER BY user_id FOR UPDATE`,
      [organizationId],
    );
    return rows.map((r) => r.user_id);
  }

  async update(
    tx: EntityManager,
    organizationId: string,
    userId: string,
    v: MembershipValues,
  ): Promise<void> {
    await tx.query(
      `UPDATE memberships SET role = $3, status = $4, permissions = $5::text[], updated_at = now()
        WHERE organization_id = $1 AND user_id = $2`,
      [organizationId, userId, v.role, v.status, v.permissions],
    );
  }
}
