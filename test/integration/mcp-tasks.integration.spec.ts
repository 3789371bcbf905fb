import { describe, expect, it } from 'vitest';
import { textJsonOf, type Json } from '../support/mcp-peers.js';
import {
  modernRequest,
  modernToolCall,
  type WireResponse,
} from '../support/mcp-confirmation-fixtures.js';
import { CONCURRENT_RETRIES, gatedToolPairPerFile } from '../support/confirmation-records.js';
import type { TestServer } from '../support/test-server.js';

/**
 * The tasks extension (ADR 0013) on two replicas of one database: a task created on one is read,
 * answered and cancelled on the other; only its owner sees it (anyone else: the same -32602 as an
 * id never issued); a client that did not declare the extension gets -32021 for the methods. A
 * call under the `approval` policy from a client that declares it is a task: `working` while the
 * request waits, `completed` with the tool's result once another admin approved it through the
 * REST route (run once under concurrent polls on both replicas), `failed` with the API
 * envelope when denied, and cancelling it withdraws the request.
 */
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

const pair = gatedToolPairPerFile('approval', { overrides: { mcpConformanceFixtures: true } });

function call(
  t: TestServer,
  name: string,
  args: Record<string, unknown>,
  capabilities: Record<string, unknown> = TASKS,
  token: string = t.tokens.owner,
): Promise<WireResponse> {
  return modernToolCall(t.url, token, name, args, {}, { capabilities });
}

function tasks(
  t: TestServer,
  method: 'tasks/get' | 'tasks/cancel' | 'tasks/update',
  params: Record<string, unknown>,
  token: string = t.tokens.owner,
  capabilities: Record<string, unknown> = TASKS,
): Promise<WireResponse> {
  return modernRequest(t.url, token, method, params, { capabilities });
}

/** The result of a 200 JSON-RPC answer (fails the test on anything else). */
function resultOf(res: WireResponse): Json {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.error, JSON.stringify(res.body)).toBeUndefined();
  return res.body.result;
}

async function getTask(t: TestServer, taskId: string, token?: string): Promise<Json> {
  return resultOf(await tasks(t, 'tasks/get', { taskId }, token));
}

/** Polls on alternating replicas until the task is no longer `working`/`input_required`. */
async function settled(taskId: string, timeoutMs = 15_000): Promise<Json> {
  const until = Date.now() + timeoutMs;
  for (let i = 0; Date.now() < until; i += 1) {
    const task = await getTask(i % 2 === 0 ? pair.a : pair.b, taskId);
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return task;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`task ${taskId} did not settle`);
}

describe('tasks of tools that run long (fixtures)', () => {
  it('created on one replica, polled on the other until completed with the result inlined', async () => {
    const created = resultOf(
      await call(pair.a, 'slow_compute', { seconds: 1, label: 'two-replicas' }),
    );
    expect(created).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: expect.any(Number),
      pollIntervalMs: expect.any(Number),
    });
    expect(created).not.toHaveProperty('task');
    expect(Date.parse(created.createdAt)).not.toBeNaN();
    // Durable before the answer: the other replica reads it at once.
    expect((await getTask(pair.b, created.taskId)).status).toBe('working');
    const done = await settled(created.taskId);
    expect(done).toMatchObject({
      resultType: 'complete',
      taskId: created.taskId,
      status: 'completed',
      result: { content: [{ type: 'text', text: 'Computed two-replicas after 1 seconds.' }] },
    });
    expect(done).not.toHaveProperty('error');
  });

  it('cancelled on the other replica: cancelled at once, the running tool stops, the ack is idempotent', async () => {
    const created = resultOf(await call(pair.a, 'slow_compute', { seconds: 60 }));
    const ack = resultOf(await tasks(pair.b, 'tasks/cancel', { taskId: created.taskId }));
    expect(Object.keys(ack).sort()).toEqual(['_meta', 'resultType']);
    expect(ack.resultType).toBe('complete');
    expect((await getTask(pair.a, created.taskId)).status).toBe('cancelled');
    expect(
      resultOf(await tasks(pair.a, 'tasks/cancel', { taskId: created.taskId })).resultType,
    ).toBe('complete');
    // Replica a noticed (its watch) and stopped: nothing is written over the cancellation.
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await getTask(pair.b, created.taskId)).status).toBe('cancelled');
  });

  it('a tool error completes with isError; a protocol error fails with the JSON-RPC error', async () => {
    const failing = resultOf(await call(pair.b, 'failing_job', {}));
    expect(await settled(failing.taskId)).toMatchObject({
      status: 'completed',
      result: { isError: true },
    });
    const crashing = resultOf(await call(pair.b, 'protocol_error_job', {}));
    const failed = await settled(crashing.taskId);
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(failed).not.toHaveProperty('result');
  });

  it('input is asked on one replica and answered on the other; the task resumes to completed', async () => {
    const created = resultOf(await call(pair.a, 'confirm_delete', { filename: 'x.txt' }));
    let task = await getTask(pair.b, created.taskId);
    for (let i = 0; task.status === 'working' && i < 50; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      task = await getTask(pair.b, created.taskId);
    }
    expect(task.status).toBe('input_required');
    const [key] = Object.keys(task.inputRequests);
    expect(task.inputRequests[key].method).toBe('elicitation/create');
    const ack = resultOf(
      await tasks(pair.b, 'tasks/update', {
        taskId: created.taskId,
        inputResponses: { [key]: { action: 'accept', content: { confirm: true } } },
      }),
    );
    expect(ack.resultType).toBe('complete');
    expect((await settled(created.taskId)).result.content[0].text).toBe('Deleted x.txt.');
  });

  it('someone else’s task does not exist for them (get, cancel, update): -32602 as for an unknown id', async () => {
    const created = resultOf(await call(pair.a, 'slow_compute', { seconds: 30 }));
    const unknown = await tasks(pair.b, 'tasks/get', {
      taskId: '00000000-0000-4000-8000-000000000000',
    });
    for (const res of [
      await tasks(pair.b, 'tasks/get', { taskId: created.taskId }, pair.b.tokens.member),
      await tasks(pair.b, 'tasks/cancel', { taskId: created.taskId }, pair.b.tokens.member),
      await tasks(
        pair.a,
        'tasks/update',
        { taskId: created.taskId, inputResponses: {} },
        pair.a.tokens.globex_owner,
      ),
      unknown,
    ]) {
      expect(res.body.error).toEqual({
        code: -32602,
        message: 'Invalid params: unknown task',
        data: { taskId: expect.any(String) },
      });
    }
    // The owner's task was not cancelled by the stranger's attempt.
    expect((await getTask(pair.a, created.taskId)).status).toBe('working');
    await tasks(pair.a, 'tasks/cancel', { taskId: created.taskId });
  });

  it('without the extension: the methods answer -32021, a task-optional tool runs at once, a task-only one is refused', async () => {
    const created = resultOf(await call(pair.a, 'slow_compute', { seconds: 30 }));
    const gated = await tasks(
      pair.b,
      'tasks/get',
      { taskId: created.taskId },
      pair.b.tokens.owner,
      {},
    );
    expect(gated.status).toBe(400);
    expect(gated.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    });
    const sync = resultOf(await call(pair.b, 'slow_compute', { seconds: 0 }, {}));
    expect(sync.resultType).toBe('complete');
    expect(sync).not.toHaveProperty('taskId');
    expect((await call(pair.b, 'failing_job', {}, {})).body.error.code).toBe(-32021);
    await tasks(pair.a, 'tasks/cancel', { taskId: created.taskId });
  });
});

async function decide(
  t: TestServer,
  id: string,
  verb: 'approve' | 'deny',
  body: Record<string, unknown> = {},
): Promise<number> {
  const res = await t.request(`/v1/mcp/approvals/${id}/${verb}`, {
    method: 'POST',
    token: 'member',
    json: body,
  });
  await res.body?.cancel();
  return res.status;
}

async function approvalOf(taskId: string): Promise<Json> {
  const [row] = await pair.sqlRows(
    `SELECT a.id, a.status FROM mcp_tasks t JOIN mcp_approvals a ON a.id = t.approval_id WHERE t.id = $1`,
    [taskId],
  );
  return row;
}

describe('a call under the approval policy, from a client that speaks tasks', () => {
  it(`is a working task while pending; approved through REST on the other replica, ${CONCURRENT_RETRIES} concurrent polls run it once and complete it with the result`, async () => {
    const target = await pair.newTarget('Task Target');
    const created = resultOf(await call(pair.a, pair.tool, { id: target.id }));
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    expect(created.statusMessage).toContain('admin permission other than Olivia Owner');
    const approval = await approvalOf(created.taskId);
    expect(approval.status).toBe('pending');
    // Polled while pending: still working, nothing ran.
    expect((await getTask(pair.b, created.taskId)).status).toBe('working');
    expect(await pair.targetStatus(target.id)).toBe(200);
    // Someone else (even the admin who decides) cannot read it.
    const stranger = await tasks(
      pair.b,
      'tasks/get',
      { taskId: created.taskId },
      pair.b.tokens.member,
    );
    expect(stranger.body.error.code).toBe(-32602);

    expect(await decide(pair.b, approval.id, 'approve', { reason: 'ok' })).toBe(200);
    const polls = await Promise.all(
      Array.from({ length: CONCURRENT_RETRIES }, (_, i) =>
        getTask(i % 2 === 0 ? pair.a : pair.b, created.taskId),
      ),
    );
    expect(polls.every((p) => p.status === 'working' || p.status === 'completed')).toBe(true);
    const done = await settled(created.taskId);
    expect(done.status).toBe('completed');
    expect(done.result.isError).not.toBe(true);
    expect(textJsonOf(done.result)).toMatchObject({ id: target.id });
    expect(await pair.targetStatus(target.id, pair.b)).toBe(404);
    expect(await pair.deletions(target.id)).toHaveLength(1);
    expect((await approvalOf(created.taskId)).status).toBe('executed');
    const executed = await pair.auditEvents({
      action: 'approval.executed',
      resource_id: approval.id,
    });
    expect(executed).toHaveLength(1);
    const history = await pair.sqlRows(
      `SELECT status FROM mcp_tool_calls WHERE tool = $1 AND status = 'ok'`,
      [pair.tool],
    );
    expect(history).toHaveLength(1);
  });

  it('denied: the task fails with the API envelope (approval_denied, the reason) and nothing runs', async () => {
    const target = await pair.newTarget('Denied Task Target');
    const created = resultOf(await call(pair.a, pair.tool, { id: target.id }));
    const approval = await approvalOf(created.taskId);
    expect(await decide(pair.a, approval.id, 'deny', { reason: 'not today' })).toBe(200);
    const failed = await settled(created.taskId);
    expect(failed.status).toBe('failed');
    expect(failed).not.toHaveProperty('result');
    expect(failed.error).toMatchObject({
      code: -31410,
      message: expect.stringContaining('not today'),
      data: { error: { code: 'approval_denied', details: { approval_id: approval.id } } },
    });
    expect(await pair.targetStatus(target.id)).toBe(200);
  });

  it('expired before anyone decided: the task fails with approval_expired, told once, nothing runs', async () => {
    const target = await pair.newTarget('Lapsed Task Target');
    const created = resultOf(await call(pair.a, pair.tool, { id: target.id }));
    const approval = await approvalOf(created.taskId);
    await pair.sql.query(
      `UPDATE mcp_approvals SET created_at = now() - interval '20 minutes', expires_at = now() - interval '1 second' WHERE id = $1`,
      [approval.id],
    );
    const failed = await settled(created.taskId);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({
      code: -31410,
      data: { error: { code: 'approval_expired', details: { approval_id: approval.id } } },
    });
    expect(await decide(pair.b, approval.id, 'approve')).toBe(409);
    // The expiry was told through the task: a retry without tasks asks anew instead.
    const retried = resultOf(await call(pair.b, pair.tool, { id: target.id }, {}));
    expect(textJsonOf(retried).error.code).toBe('approval_pending');
    expect(await pair.targetStatus(target.id)).toBe(200);
  });

  it('cancelled by the requester: the request is withdrawn (audited) and can no longer be approved', async () => {
    const target = await pair.newTarget('Withdrawn Target');
    const created = resultOf(await call(pair.b, pair.tool, { id: target.id }));
    const approval = await approvalOf(created.taskId);
    expect(
      resultOf(await tasks(pair.a, 'tasks/cancel', { taskId: created.taskId })).resultType,
    ).toBe('complete');
    expect((await getTask(pair.b, created.taskId)).status).toBe('cancelled');
    expect((await approvalOf(created.taskId)).status).toBe('expired');
    expect(await decide(pair.a, approval.id, 'approve')).toBe(409);
    const withdrawn = await pair.auditEvents({
      action: 'approval.withdrawn',
      resource_id: approval.id,
    });
    expect(withdrawn).toHaveLength(1);
    expect(withdrawn[0].actor_name).toBe('Olivia Owner');
    expect(await pair.targetStatus(target.id)).toBe(200);
  });

  it('a client without the extension keeps the isError approval_pending answer', async () => {
    const target = await pair.newTarget('Retry Path Target');
    const res = await call(pair.a, pair.tool, { id: target.id }, {});
    const result = resultOf(res);
    expect(result.resultType).toBe('complete');
    expect(result.isError).toBe(true);
    expect(textJsonOf(result).error.code).toBe('approval_pending');
  });
});
