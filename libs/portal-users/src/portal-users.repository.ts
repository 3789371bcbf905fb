import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { constraintErrorOf, organizationRow, type RowSource } from '@app/database';
import { DomainError } from '@app/errors';
import { contains, CURSOR_TIMESTAMP_SQL, equals, newestFirstQuery } from '@app/rest-contract';
import type { PortalUserStatus } from './portal-user.dto.js';

export interface PortalUserRow {
  id: string;
  organization_id: string;
  account_id: string | null;
  email: string;
  name: string;
  external_id: string | null;
  status: PortalUserStatus;
  invitation_sent_at: Date | null;
  invitation_expires_at: Date | null;
  activated_at: Date | null;
  deactivated_at: Date | null;
  created_at: Date;
  updated_at: Date;
  cursor_ts: string;
}

export interface PortalUserValues {
  email: string;
  name: string;
  external_id: string | null;
  account_id: string | null;
}

export interface PortalUserFilter {
  status?: PortalUserStatus;
  accountId?: string;
  q?: string;
  after?: readonly string[];
  take: number;
}

const ROW_COLUMNS = `id, organization_id, account_id, email, name, external_id, status, invitation_sent_at,
  invitation_expires_at, activated_at, deactivated_at, created_at, updated_at`;
const COLUMNS = `${ROW_COLUMNS}, ${CURSOR_TIMESTAMP_SQL('created_at')} AS cursor_ts`;
const PORTAL_USERS: RowSource = { table: 'portal_users', columns: COLUMNS };

/**
 * All SQL on `portal_users`. Uniqueness is the database's (named indexes), mapped here:
 * e-mail → DUPLICATE_ERROR, external_id → CONFLICT, an account outside the organisation →
 * VALIDATION_ERROR on `account_id` (composite foreign key). State changes are conditional
 * UPDATEs: they return the row only when this call made the change.
 */
@Injectable()
export class PortalUsersRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insert(
    tx: EntityManager,
    organizationId: string,
    v: PortalUserValues & { status?: PortalUserStatus },
  ): Promise<PortalUserRow> {
    try {
      const rows = await tx.query<PortalUserRow[]>(
        `INSERT INTO portal_users (organization_id, email, name, external_id, account_id, status,
                                   activated_at, deactivated_at)
         VALUES ($1, $2, $3, $4, $5, $6,
                 CASE WHEN $6 <> 'invited' THEN now() END, CASE WHEN $6 = 'inactive' THEN now() END)
         RETURNING ${COLUMNS}`,
        [organizationId, v.email, v.name, v.external_id, v.account_id, v.status ?? 'invited'],
      );
      return rows[0];
    } catch (err) {
      throw constraintErrorOf(err, CONSTRAINT_ERRORS) ?? err;
    }
  }

  findById(organizationId: string, id: string): Promise<PortalUserRow | undefined> {
    return organizationRow(this.ds, PORTAL_USERS, organizationId, id);
  }

  /** Reads and locks the row for the rest of the transaction. */
  lockById(
    tx: EntityManager,
    organizationId: string,
    id: string,
  ): Promise<PortalUserRow | undefined> {
    return organizationRow(tx, PORTAL_USERS, organizationId, id, { lock: true });
  }

  /** Changes the editable fields; `voidInvitation` also drops a pending invitation token. */
  async update(
    tx: EntityManager,
    organizationId: string,
    id: string,
    v: PortalUserValues,
    voidInvitation: boolean,
  ): Promise<PortalUserRow | undefined> {
    try {
      return first(
        await tx.query<[PortalUserRow[], number]>(
          `UPDATE portal_users
              SET email = $3, name = $4, external_id = $5, account_id = $6, updated_at = now(),
                  invitation_token_hash = CASE WHEN $7 THEN NULL ELSE invitation_token_hash END,
                  invitation_expires_at = CASE WHEN $7 THEN NULL ELSE invitation_expires_at END
            WHERE organization_id = $1 AND id = $2
           RETURNING ${COLUMNS}`,
          [organizationId, id, v.email, v.name, v.external_id, v.account_id, voidInvitation],
        ),
      );
    } catch (err) {
      throw constraintErrorOf(err, CONSTRAINT_ERRORS) ?? err;
    }
  }

  /** Stores a new invitation (hash only) on an invited portal user; `undefined` if not invited. */
  async setInvitation(
    tx: EntityManager,
    organizationId: string,
    id: string,
    tokenHash: string,
    expiresAt: Date,
  ): Promise<PortalUserRow | undefined> {
    return first(
      await tx.query<[PortalUserRow[], number]>(
        `UPDATE portal_users
            SET invitation_token_hash = $3, invitation_expires_at = $4, invitation_sent_at = now(), updated_at = now()
          WHERE organization_id = $1 AND id = $2 AND status = 'invited'
         RETURNING ${COLUMNS}`,
        [organizationId, id, tokenHash, expiresAt],
      ),
    );
  }

  /** `from` → `to`, once: `undefined` when the portal user was not in `from`. */
  async transition(
    tx: EntityManager,
    organizationId: string,
    id: string,
    from: PortalUserStatus,
    to: 'active' | 'inactive',
  ): Promise<PortalUserRow | undefined> {
    return first(
      await tx.query<[PortalUserRow[], number]>(
        `UPDATE portal_users
            SET status = $4, updated_at = now(),
                activated_at = CASE WHEN $4 = 'active' THEN now() ELSE activated_at END,
                deactivated_at = CASE WHEN $4 = 'inactive' THEN now() ELSE deactivated_at END,
                invitation_token_hash = NULL, invitation_expires_at = NULL
          WHERE organization_id = $1 AND id = $2 AND status = $3
         RETURNING ${COLUMNS}`,
        [organizationId, id, from, to],
      ),
    );
  }

  /** The invited portal user whose live (unexpired) invitation has this hash. Reads only. */
  async findByLiveInvitation(tokenHash: string): Promise<PortalUserRow | undefined> {
    const rows = await this.ds.query<PortalUserRow[]>(
      `SELECT ${COLUMNS} FROM portal_users
        WHERE invitation_token_hash = $1 AND status = 'invited' AND invitation_expires_at > now()`,
      [tokenHash],
    );
    return rows[0];
  }

  /** Consumes a live invitation, once: invited → active. */
  async acceptInvitation(tx: EntityManager, tokenHash: string): Promise<PortalUserRow | undefined> {
    return first(
      await tx.query<[PortalUserRow[], number]>(
        `UPDATE portal_users
            SET status = 'active', activated_at = now(), updated_at = now(),
                invitation_token_hash = NULL, invitation_expires_at = NULL
          WHERE invitation_token_hash = $1 AND status = 'invited' AND invitation_expires_at > now()
         RETURNING ${COLUMNS}`,
        [tokenHash],
      ),
    );
  }

  async delete(
    tx: EntityManager,
    organizationId: string,
    id: string,
  ): Promise<PortalUserRow | undefined> {
    return first(
      await tx.query<[PortalUserRow[], number]>(
        `DELETE FROM portal_users WHERE organization_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
        [organizationId, id],
      ),
    );
  }

  /** Newest first, `(created_at, id)` keyset order; `q` matches name or e-mail ignoring case. */
  list(organizationId: string, f: PortalUserFilter): Promise<PortalUserRow[]> {
    const { text, params } = newestFirstQuery({
      from: 'portal_users',
      columns: ROW_COLUMNS,
      organizationId,
      conditions: [
        equals('status', f.status),
        equals('account_id', f.accountId, '::uuid'),
        contains(['name', 'email'], f.q),
      ],
      window: f,
    });
    return this.ds.query<PortalUserRow[]>(text, params);
  }
}

/** The row of an `UPDATE|DELETE … RETURNING` (TypeORM answers `[rows, count]` for those). */
function first([rows]: [PortalUserRow[], number]): PortalUserRow | undefined {
  return rows[0];
}

const CONSTRAINT_ERRORS: Readonly<Record<string, () => DomainError>> = {
  uq_portal_users_org_email: () =>
    DomainError.taken(
      'DUPLICATE_ERROR',
      'email',
      'A portal user with this email already exists in this organisation',
    ),
  uq_portal_users_org_external_id: () =>
    DomainError.taken(
      'CONFLICT',
      'external_id',
      'external_id is already used by another portal user in this organisation',
    ),
  fk_portal_users_account: () =>
    DomainError.validation(
      [{ field: 'account_id', message: 'must be the id of an account of this organisation' }],
      'Validation failed: account_id must be the id of an account of this organisation',
    ),
};
