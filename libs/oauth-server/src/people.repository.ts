import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { MembershipStatus, Permission, Role } from '@app/identity';

/** A person and the organisations they belong to, as sign-in and consent see them. */
export interface PersonMembership {
  membershipId: string;
  organizationId: string;
  organizationSlug: string;
  organizationName: string;
  role: Role;
  status: MembershipStatus;
  permissions: Permission[];
}

export interface Person {
  userId: string;
  email: string;
  name: string;
  memberships: PersonMembership[];
}

interface PersonRow {
  user_id: string;
  email: string;
  name: string;
  membership_id: string | null;
  organization_id: string | null;
  organization_slug: string | null;
  organization_name: string | null;
  role: Role | null;
  status: MembershipStatus | null;
  permissions: Permission[] | null;
}

const PERSON_SELECT = `
  SELECT u.id AS user_id, u.email, u.name,
         m.id AS membership_id, o.id AS organization_id, o.slug AS organization_slug,
         o.name AS organization_name, m.role, m.status, m.permissions
    FROM users u
    LEFT JOIN memberships m ON m.user_id = u.id
    LEFT JOIN organizations o ON o.id = m.organization_id`;

function toPerson(rows: PersonRow[]): Person | undefined {
  const first = rows[0];
  if (first === undefined) return undefined;
  const memberships: PersonMembership[] = [];
  for (const r of rows) {
    if (r.membership_id === null || r.organization_id === null) continue;
    memberships.push({
      membershipId: r.membership_id,
      organizationId: r.organization_id,
      organizationSlug: r.organization_slug ?? '',
      organizationName: r.organization_name ?? '',
      role: r.role ?? 'custom',
      status: r.status ?? 'inactive',
      permissions: r.permissions ?? [],
    });
  }
  return { userId: first.user_id, email: first.email, name: first.name, memberships };
}

export interface SessionRow {
  id: string;
  user_id: string;
  expires_at: Date;
}

/** All SQL about people signing in: sessions, one-time links, and who a person is. */
@Injectable()
export class PeopleRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async findPersonById(userId: string): Promise<Person | undefined> {
    const rows = await this.ds.query<PersonRow[]>(
      `${PERSON_SELECT} WHERE u.id = $1 ORDER BY o.name, o.id`,
      [userId],
    );
    return toPerson(rows);
  }

  async findPersonByEmail(email: string): Promise<Person | undefined> {
    const rows = await this.ds.query<PersonRow[]>(
      `${PERSON_SELECT} WHERE lower(u.email) = lower($1) ORDER BY o.name, o.id`,
      [email],
    );
    return toPerson(rows);
  }

  async insertSession(userId: string, secretHash: string, ttlSeconds: number): Promise<SessionRow> {
    const rows = await this.ds.query<SessionRow[]>(
      `INSERT INTO person_sessions (user_id, secret_hash, expires_at)
       VALUES ($1, $2, now() + make_interval(secs => $3))
       RETURNING id, user_id, expires_at`,
      [userId, secretHash, ttlSeconds],
    );
    return rows[0];
  }

  /** A live session by its secret's hash (not ended, not expired). */
  async findLiveSession(secretHash: string): Promise<SessionRow | undefined> {
    const rows = await this.ds.query<SessionRow[]>(
      `SELECT id, user_id, expires_at FROM person_sessions
        WHERE secret_hash = $1 AND ended_at IS NULL AND expires_at > now()`,
      [secretHash],
    );
    return rows[0];
  }

  async endSession(secretHash: string): Promise<void> {
    await this.ds.query(
      `UPDATE person_sessions SET ended_at = now() WHERE secret_hash = $1 AND ended_at IS NULL`,
      [secretHash],
    );
  }

  /** `tx`: inside the caller's transaction (with the mail that carries the link). */
  async insertSignInLink(
    userId: string,
    secretHash: string,
    returnTo: string | null,
    ttlSeconds: number,
    tx: EntityManager = this.ds.manager,
  ): Promise<Date> {
    const rows = await tx.query<{ expires_at: Date }[]>(
      `INSERT INTO sign_in_links (user_id, secret_hash, return_to, expires_at)
       VALUES ($1, $2, $3, now() + make_interval(secs => $4))
       RETURNING expires_at`,
      [userId, secretHash, returnTo, ttlSeconds],
    );
    return rows[0].expires_at;
  }

  /**
   * Uses a sign-in link: one conditional UPDATE, so exactly one request wins even across
   * replicas. `undefined`: unknown, already used or expired (see {@link describeSignInLink}).
   */
  async consumeSignInLink(
    secretHash: string,
  ): Promise<{ user_id: string; return_to: string | null } | undefined> {
    // An UPDATE … RETURNING answers [rows, affected] through TypeORM's postgres driver.
    const [rows] = await this.ds.query<[{ user_id: string; return_to: string | null }[], number]>(
      `UPDATE sign_in_links SET used_at = now()
        WHERE secret_hash = $1 AND used_at IS NULL AND expires_at > now()
        RETURNING user_id, return_to`,
      [secretHash],
    );
    return rows[0];
  }

  /** Why a link cannot be used, for the page that says so. */
  async describeSignInLink(secretHash: string): Promise<'unknown' | 'used' | 'expired' | 'valid'> {
    const rows = await this.ds.query<{ used: boolean; expired: boolean }[]>(
      `SELECT used_at IS NOT NULL AS used, expires_at <= now() AS expired
         FROM sign_in_links WHERE secret_hash = $1`,
      [secretHash],
    );
    const row = rows[0];
    if (row === undefined) return 'unknown';
    if (row.used) return 'used';
    return row.expired ? 'expired' : 'valid';
  }
}
