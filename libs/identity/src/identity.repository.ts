import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { firstRowAs, returnedRow } from '@app/database';
import type { MembershipStatus, Permission, Role } from '@app/access-vocabulary';
import type { Organization, Person, PersonMembership, User } from './identity.types.js';

interface OrganizationRow {
  id: string;
  slug: string;
  name: string;
  created_at: Date;
}

interface UserRow {
  id: string;
  email: string;
  name: string;
  created_at: Date;
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
const ORGANIZATION_COLUMNS = 'id, slug, name, created_at';
const USER_COLUMNS = 'id, email, name, created_at';

/**
 * All SQL about `organizations` and `users`. `tx`: run inside the caller's transaction (e.g. the
 * admin command's organisation setup).
 */
@Injectable()
export class IdentityRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async createOrganization(slug: string, name: string, tx?: EntityManager): Promise<Organization> {
    const rows = await (tx ?? this.ds).query<OrganizationRow[]>(
      `INSERT INTO organizations (slug, name) VALUES ($1, $2) RETURNING ${ORGANIZATION_COLUMNS}`,
      [slug, name],
    );
    return toOrganization(returnedRow(rows));
  }

  async findOrganizationBySlug(slug: string): Promise<Organization | null> {
    const rows = await this.ds.query<OrganizationRow[]>(
      `SELECT ${ORGANIZATION_COLUMNS} FROM organizations WHERE slug = $1`,
      [slug],
    );
    return firstRowAs(rows, toOrganization) ?? null;
  }

  async findOrganization(id: string): Promise<Organization | null> {
    const rows = await this.ds.query<OrganizationRow[]>(
      `SELECT ${ORGANIZATION_COLUMNS} FROM organizations WHERE id = $1`,
      [id],
    );
    return firstRowAs(rows, toOrganization) ?? null;
  }

  async createUser(email: string, name: string, tx?: EntityManager): Promise<User> {
    const rows = await (tx ?? this.ds).query<UserRow[]>(
      `INSERT INTO users (email, name) VALUES ($1, $2) RETURNING ${USER_COLUMNS}`,
      [email, name],
    );
    return toUser(returnedRow(rows));
  }

  /** The person with this e-mail, ignoring case (e-mails are unique that way). */
  async findUserByEmail(email: string, tx?: EntityManager): Promise<User | null> {
    const rows = await (tx ?? this.ds).query<UserRow[]>(
      `SELECT ${USER_COLUMNS} FROM users WHERE lower(email) = lower($1)`,
      [email],
    );
    return firstRowAs(rows, toUser) ?? null;
  }

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

  /**
   * Names and e-mails of people by id, for views that store only ids (the MCP history). Callers
   * pass ids read from their own organisation's rows.
   */
  describePeople(ids: readonly string[]): Promise<{ id: string; name: string; email: string }[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.ds.query(
      `SELECT id, name, email FROM users WHERE id = ANY($1::uuid[]) ORDER BY name`,
      [[...ids]],
    );
  }
}

function toOrganization(r: OrganizationRow): Organization {
  return { id: r.id, slug: r.slug, name: r.name, createdAt: r.created_at };
}

function toUser(r: UserRow): User {
  return { id: r.id, email: r.email, name: r.name, createdAt: r.created_at };
}
