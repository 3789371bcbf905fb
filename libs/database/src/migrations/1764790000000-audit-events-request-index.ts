import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The admin console opens a tool call with the audit events it wrote: they share its request id. */
export class AuditEventsRequestIndex1764790000000 implements MigrationInterface {
  name = 'AuditEventsRequestIndex1764790000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX ix_audit_events_org_request ON audit_events (organization_id, request_id) WHERE request_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_audit_events_org_request`);
  }
}
