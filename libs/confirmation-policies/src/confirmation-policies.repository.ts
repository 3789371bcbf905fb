import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { camelCasedRows, firstRowAs, returnedRow } from '@app/database';
import type { ConfirmationMode, ConfirmationPolicy } from './confirmation-policy.js';

interface PolicyRow {
  id: string;
  tool: string;
  mode: ConfirmationMode;
  expiry_seconds: number;
  version: number;
  updated_at: Date;
  updated_by: string | null;
}

const COLUMNS = `id, tool, mode, expiry_seconds, version, updated_at, updated_by`;
const toPolicy: (r: PolicyRow) => ConfirmationPolicy = camelCasedRows(COLUMNS);

/** The values a change sets; the version moves by one in the same statement. */
export interface PolicyValues {
  mode: ConfirmationMode;
  expirySeconds: number;
  updatedBy: string;
}

/** All SQL on `mcp_confirmation_policies`. */
@Injectable()
export class ConfirmationPoliciesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The organisation's set policies (tools without a row follow the default). */
  async listSet(organizationId: string): Promise<ConfirmationPolicy[]> {
    const rows = await this.ds.query<PolicyRow[]>(
      `SELECT ${COLUMNS} FROM mcp_confirmation_policies WHERE organization_id = $1 ORDER BY tool`,
      [organizationId],
    );
    return rows.map(toPolicy);
  }

  /** The set policy of one tool, locked for the caller's transaction; undefined if never set. */
  async lock(
    tx: EntityManager,
    organizationId: string,
    tool: string,
  ): Promise<ConfirmationPolicy | undefined> {
    const rows = await tx.query<PolicyRow[]>(
      `SELECT ${COLUMNS} FROM mcp_confirmation_policies
        WHERE organization_id = $1 AND tool = $2 FOR UPDATE`,
      [organizationId, tool],
    );
    return firstRowAs(rows, toPolicy);
  }

  /**
   * Sets a tool's policy: the first time at version 1, afterwards one more than before. Two
   * concurrent first writes meet at the unique key; the loser updates the winner's row (so both
   * versions are counted).
   */
  async upsert(
    tx: EntityManager,
    organizationId: string,
    tool: string,
    values: PolicyValues,
  ): Promise<ConfirmationPolicy> {
    const rows = await tx.query<PolicyRow[]>(
      `INSERT INTO mcp_confirmation_policies (organization_id, tool, mode, expiry_seconds, version, updated_by)
       VALUES ($1, $2, $3, $4, 1, $5)
       ON CONFLICT ON CONSTRAINT uq_mcp_confirmation_policies_org_tool DO UPDATE
          SET mode = EXCLUDED.mode, expiry_seconds = EXCLUDED.expiry_seconds,
              updated_by = EXCLUDED.updated_by, updated_at = now(),
              version = mcp_confirmation_policies.version + 1
       RETURNING ${COLUMNS}`,
      [organizationId, tool, values.mode, values.expirySeconds, values.updatedBy],
    );
    return toPolicy(returnedRow(rows));
  }
}
