import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { MembershipStatus, Permission, Role } from '@app/identity';

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

const COLUMNS = `m.user_id, u.email, u.name, m.role, m.status, m.permissions, m.created_at, m.updated_at,
  lower(u.email) AS sort_email`;

/** Membership administration SQL (`memberships` joined with `users`), ordered by e-mail. */
@Injectable()
export class MembersRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

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
      `SELECT ${COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE ${where.join(' AND ')} ORDER BY lower(u.email), m.user_id LIMIT $${params.length}`,
      params,
    );
  }

  async lock(
    tx: EntityManager,
    organizationId: string,
    userId: string,
  ): Promise<MemberRow | undefined> {
    const rows = await tx.query<MemberRow[]>(
      `SELECT ${COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.organization_id = $1 AND m.user_id = $2 FOR UPDATE OF m`,
      [organizationId, userId],
    );
    return rows[0];
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
