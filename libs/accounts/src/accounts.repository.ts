import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { constraintErrorOf, organizationRow, type RowSource } from '@app/database';
import { DomainError } from '@app/errors';
import { contains, CURSOR_TIMESTAMP_SQL, newestFirstQuery } from '@app/rest-contract';

export interface AccountRow {
  id: string;
  organization_id: string;
  name: string;
  external_id: string | null;
  tax_id: string | null;
  created_at: Date;
  updated_at: Date;
  cursor_ts: string;
}

export interface AccountValues {
  name: string;
  external_id: string | null;
  tax_id: string | null;
}

const ROW_COLUMNS = 'id, organization_id, name, external_id, tax_id, created_at, updated_at';
const COLUMNS = `${ROW_COLUMNS}, ${CURSOR_TIMESTAMP_SQL('created_at')} AS cursor_ts`;
const ACCOUNTS: RowSource = { table: 'accounts', columns: COLUMNS };

/**
 * All SQL on `accounts` (and the one question it asks of `portal_users`: who still points at an
 * account, so this library does not depend on portal-users). Unique violations become the API's
 * codes here: `external_id` → CONFLICT, `tax_id` → DUPLICATE_ERROR.
 */
@Injectable()
export class AccountsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insert(tx: EntityManager, organizationId: string, v: AccountValues): Promise<AccountRow> {
    try {
      const rows = await tx.query<AccountRow[]>(
        `INSERT INTO accounts (organization_id, name, external_id, tax_id) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
        [organizationId, v.name, v.external_id, v.tax_id],
      );
      return rows[0];
    } catch (err) {
      throw constraintErrorOf(err, CONSTRAINT_ERRORS) ?? err;
    }
  }

  findById(organizationId: string, id: string): Promise<AccountRow | undefined> {
    return organizationRow(this.ds, ACCOUNTS, organizationId, id);
  }

  /** Reads and locks the row for the rest of the transaction. */
  lockById(tx: EntityManager, organizationId: string, id: string): Promise<AccountRow | undefined> {
    return organizationRow(tx, ACCOUNTS, organizationId, id, { lock: true });
  }

  async update(
    tx: EntityManager,
    organizationId: string,
    id: string,
    v: AccountValues,
  ): Promise<AccountRow> {
    try {
      const [rows] = await tx.query<[AccountRow[], number]>(
        `UPDATE accounts SET name = $3, external_id = $4, tax_id = $5, updated_at = now()
          WHERE organization_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
        [organizationId, id, v.name, v.external_id, v.tax_id],
      );
      return rows[0];
    } catch (err) {
      throw constraintErrorOf(err, CONSTRAINT_ERRORS) ?? err;
    }
  }

  /** Portal users pointing at the account, locked so none is activated or moved mid-delete. */
  async lockPortalUsersOf(
    tx: EntityManager,
    organizationId: string,
    id: string,
  ): Promise<Array<{ id: string; status: string }>> {
    return tx.query<Array<{ id: string; status: string }>>(
      `SELECT id, status FROM portal_users WHERE organization_id = $1 AND account_id = $2 ORDER BY id FOR UPDATE`,
      [organizationId, id],
    );
  }

  async delete(tx: EntityManager, organizationId: string, id: string): Promise<boolean> {
    const [, count] = await tx.query<[unknown[], number]>(
      `DELETE FROM accounts WHERE organization_id = $1 AND id = $2`,
      [organizationId, id],
    );
    return count === 1;
  }

  /** Newest first, `(created_at, id)` keyset order; `q` matches the name ignoring case. */
  list(
    organizationId: string,
    f: { q?: string; after?: readonly string[]; take: number },
  ): Promise<AccountRow[]> {
    const { text, params } = newestFirstQuery({
      from: 'accounts',
      columns: ROW_COLUMNS,
      organizationId,
      conditions: [contains(['name'], f.q)],
      window: f,
    });
    return this.ds.query<AccountRow[]>(text, params);
  }
}

const CONSTRAINT_ERRORS: Readonly<Record<string, () => DomainError>> = {
  uq_accounts_org_external_id: () =>
    DomainError.taken(
      'CONFLICT',
      'external_id',
      'external_id is already used by another account in this organisation',
    ),
  uq_accounts_org_tax_id: () =>
    DomainError.taken(
      'DUPLICATE_ERROR',
      'tax_id',
      'An account with this tax_id already exists in this organisation',
    ),
};
