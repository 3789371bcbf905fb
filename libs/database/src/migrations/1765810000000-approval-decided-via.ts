import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where an approval request was decided: `console` (the admin console's Approvals page, a signed-in
 * session) or `api` (`POST /v1/mcp/approvals/{id}/approve|deny` with a personal token, whose name is
 * kept as it was then). The call history's approval chain said "the admin console's Approvals page"
 * for every decision, also for one a script made with a token. Requests decided before this
 * migration keep NULL: where they were decided was not recorded, and the chain says so.
 */
export class ApprovalDecidedVia1765810000000 implements MigrationInterface {
  name = 'ApprovalDecidedVia1765810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE mcp_approvals
        ADD COLUMN decided_via text CHECK (decided_via IN ('console', 'api')),
        ADD COLUMN decided_token_name text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE mcp_approvals DROP COLUMN decided_token_name, DROP COLUMN decided_via`,
    );
  }
}
