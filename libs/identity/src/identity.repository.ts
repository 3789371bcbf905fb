import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { returnedRow } from '@app/database';
import type { Organization, User } from './identity.types.js';

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
    return rows[0] === undefined ? null : toOrganization(rows[0]);
  }

  async findOrganization(id: string): Promise<Organization | null> {
    const rows = await this.ds.query<OrganizationRow[]>(
      `SELECT ${ORGANIZATION_COLUMNS} FROM organizations WHERE id = $1`,
      [id],
    );
    return rows[0] === undefined ? null : toOrganization(rows[0]);
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
    return rows[0] === undefined ? null : toUser(rows[0]);
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
