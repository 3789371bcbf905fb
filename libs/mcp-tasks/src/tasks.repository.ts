import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { camelCasedRows, firstRowAs, purgeExpiredRows, returnedRow } from '@app/database';
import type { McpTask, NewTask, TaskError, TaskOwner, TaskStatus } from './task.js';

interface TaskRow {
  id: string;
  organization_id: string;
  user_id: string;
  token_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  approval_id: string | null;
  status: TaskStatus;
  status_message: string | null;
  input_requests: Record<string, unknown> | null;
  input_responses: Record<string, unknown>;
  result: Record<string, unknown> | null;
  error: TaskError | null;
  ttl_ms: number;
  poll_interval_ms: number;
  created_at: Date;
  last_updated_at: Date;
  expires_at: Date;
}

const COLUMNS = `id, organization_id, user_id, token_id, tool, arguments, approval_id, status,
  status_message, input_requests, input_responses, result, error, ttl_ms, poll_interval_ms,
  created_at, last_updated_at, expires_at`;
const taskOfRow = camelCasedRows<TaskRow>(COLUMNS);

/** Not terminal: a task that may still change. */
const OPEN = `status IN ('working', 'input_required')`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * All SQL on `mcp_tasks`. A task is found only by its owner (person and organisation) and only
 * until it expires; anything else reads as "no such task". Every state change is a conditional
 * UPDATE on an open task whose returned row says whether it happened, so a cancelled or finished
 * task never changes again whichever replica writes. Database failures propagate unchanged.
 */
@Injectable()
export class TasksRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insert(t: NewTask): Promise<McpTask> {
    const rows = await this.ds.query<TaskRow[]>(
      `INSERT INTO mcp_tasks (organization_id, user_id, token_id, tool, arguments, approval_id,
          status_message, input_responses, ttl_ms, poll_interval_ms, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + $9::int * interval '1 millisecond')
       RETURNING ${COLUMNS}`,
      [
        t.organizationId,
        t.userId,
        t.tokenId,
        t.tool,
        JSON.stringify(t.arguments),
        t.approvalId,
        t.statusMessage,
        JSON.stringify(t.inputResponses),
        t.ttlMs,
        t.pollIntervalMs,
      ],
    );
    return toTask(returnedRow(rows));
  }

  /** The owner's task, if it exists and has not expired. */
  async findOwned(id: string, owner: TaskOwner): Promise<McpTask | undefined> {
    if (!UUID.test(id)) return undefined;
    const rows = await this.ds.query<TaskRow[]>(
      `SELECT ${COLUMNS} FROM mcp_tasks
        WHERE id = $1 AND organization_id = $2 AND user_id = $3 AND expires_at > now()`,
      [id, owner.organizationId, owner.userId],
    );
    return firstRowAs(rows, toTask);
  }

  /** The task's status now (any owner): how a running tool learns it was cancelled elsewhere. */
  async statusOf(id: string): Promise<TaskStatus | undefined> {
    const rows = await this.ds.query<Array<{ status: TaskStatus }>>(
      `SELECT status FROM mcp_tasks WHERE id = $1`,
      [id],
    );
    return rows[0]?.status;
  }

  /**
   * Takes the lease to advance a `working` task for `seconds` (one replica at a time runs its
   * tool); false when another holds an unexpired lease or the task is no longer `working`.
   */
  async claim(id: string, seconds: number): Promise<boolean> {
    // An UPDATE answers [rows, affected] through TypeORM's postgres driver.
    const [rows] = await this.ds.query<[Array<{ id: string }>, number]>(
      `UPDATE mcp_tasks SET claimed_until = now() + $2::int * interval '1 second'
        WHERE id = $1 AND status = 'working' AND (claimed_until IS NULL OR claimed_until <= now())
        RETURNING id`,
      [id, seconds],
    );
    return rows.length > 0;
  }

  /**
   * Extends a lease this replica holds (while the approved tool still runs) by `seconds` from
   * now; false when the task is no longer `working` (it ended meanwhile) or holds no lease.
   */
  async renewClaim(id: string, seconds: number): Promise<boolean> {
    const [rows] = await this.ds.query<[Array<{ id: string }>, number]>(
      `UPDATE mcp_tasks SET claimed_until = now() + $2::int * interval '1 second'
        WHERE id = $1 AND status = 'working' AND claimed_until IS NOT NULL
        RETURNING id`,
      [id, seconds],
    );
    return rows.length > 0;
  }

  async release(id: string): Promise<void> {
    await this.ds.query(`UPDATE mcp_tasks SET claimed_until = NULL WHERE id = $1`, [id]);
  }

  /** An open task completes with the tool's result; false if it was already closed. */
  complete(id: string, result: Record<string, unknown>): Promise<boolean> {
    return this.close(id, `status = 'completed', result = $2`, [JSON.stringify(result)]);
  }

  /** An open task fails with a JSON-RPC error; false if it was already closed. */
  fail(id: string, error: TaskError): Promise<boolean> {
    return this.close(id, `status = 'failed', error = $2`, [JSON.stringify(error)]);
  }

  /** The owner cancels an open task; false if it was unknown to them or already closed. */
  async cancel(id: string, owner: TaskOwner): Promise<boolean> {
    if (!UUID.test(id)) return false;
    return this.close(id, `status = 'cancelled'`, [owner.organizationId, owner.userId], {
      ownerParams: true,
    });
  }

  /** A `working` task waits for the client's answers to `inputRequests`. */
  async awaitInput(id: string, inputRequests: Record<string, unknown>): Promise<boolean> {
    const [rows] = await this.ds.query<[Array<{ id: string }>, number]>(
      `UPDATE mcp_tasks
          SET status = 'input_required', input_requests = $2, claimed_until = NULL,
              last_updated_at = now()
        WHERE id = $1 AND status = 'working' RETURNING id`,
      [id, JSON.stringify(inputRequests)],
    );
    return rows.length > 0;
  }

  /**
   * Records the owner's answers to the keys the task is still asking (others are ignored); once
   * none is left the task is `working` again. Returns the task as it is after, undefined when it
   * is not the owner's (or gone), and `resumed` when this update answered the last request (the
   * caller then runs the tool again).
   */
  async answer(
    id: string,
    owner: TaskOwner,
    responses: Record<string, unknown>,
  ): Promise<{ task: McpTask; resumed: boolean } | undefined> {
    if (!UUID.test(id)) return undefined;
    return this.ds.transaction(async (tx) => {
      const rows = await tx.query<TaskRow[]>(
        `SELECT ${COLUMNS} FROM mcp_tasks
          WHERE id = $1 AND organization_id = $2 AND user_id = $3 AND expires_at > now()
          FOR UPDATE`,
        [id, owner.organizationId, owner.userId],
      );
      if (rows[0] === undefined) return undefined;
      const task = toTask(rows[0]);
      if (task.status !== 'input_required' || task.inputRequests === null)
        return { task, resumed: false };
      const pending = { ...task.inputRequests };
      const answers = { ...task.inputResponses };
      let answered = 0;
      for (const key of Object.keys(responses)) {
        if (!Object.hasOwn(pending, key)) continue;
        answers[key] = responses[key];
        delete pending[key];
        answered += 1;
      }
      if (answered === 0) return { task, resumed: false };
      const resumed = Object.keys(pending).length === 0;
      const [updated] = await tx.query<[TaskRow[], number]>(
        `UPDATE mcp_tasks
            SET input_responses = $2, input_requests = $3,
                status = CASE WHEN $3::jsonb IS NULL THEN 'working' ELSE 'input_required' END,
                last_updated_at = now()
          WHERE id = $1 RETURNING ${COLUMNS}`,
        [id, JSON.stringify(answers), resumed ? null : JSON.stringify(pending)],
      );
      return { task: toTask(returnedRow(updated)), resumed };
    });
  }

  /**
   * Deletes at most `limit` tasks past their expiry (nobody can read them any more: every lookup
   * filters on `expires_at`); returns how many.
   */
  sweep(limit: number): Promise<number> {
    return purgeExpiredRows(this.ds, 'mcp_tasks', 'id', limit, 0);
  }

  private async close(
    id: string,
    set: string,
    params: unknown[],
    options: { ownerParams?: boolean } = {},
  ): Promise<boolean> {
    const owner = options.ownerParams === true ? ` AND organization_id = $2 AND user_id = $3` : '';
    const [rows] = await this.ds.query<[Array<{ id: string }>, number]>(
      `UPDATE mcp_tasks
          SET ${set}, input_requests = NULL, claimed_until = NULL, last_updated_at = now()
        WHERE id = $1 AND ${OPEN} AND expires_at > now()${owner} RETURNING id`,
      [id, ...params],
    );
    return rows.length > 0;
  }
}

function toTask(r: TaskRow): McpTask {
  return {
    ...taskOfRow(r),
    createdAt: new Date(r.created_at),
    lastUpdatedAt: new Date(r.last_updated_at),
    expiresAt: new Date(r.expires_at),
  };
}
