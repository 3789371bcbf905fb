import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { modernToolCall } from '../support/mcp-confirmation-fixtures.js';
import {
  createPortalUser,
  portalUserStatus,
  requireApproval,
} from '../support/confirmation-records.js';
import { textJsonOf, type Json } from '../support/mcp-peers.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * A call under the `approval` policy from an agent on the official v2 SDK client (2.4.0) on
 * 2026-07-28, declaring the tasks extension. The SDK has no SEP-2663 support of its own: it sees
 * the extension advertised, but refuses a `tools/call` answered with a task ("Unsupported result
 * type 'task'", asserted below, so an SDK upgrade that adds it shows up here). So the agent creates
 * the task with a raw request and polls `tasks/get` through the SDK's generic `request` (its
 * transport, `_meta`, headers and version negotiation). Another admin approves through the REST
 * route; the polling completes the task with the deletion's result, once; a denial fails it with
 * the documented code.
 */
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const TOOL = 'delete_portal_user';

/** What the agent reads: a task (create or get), loosely: the server's fields are checked below. */
const TaskResult = z.looseObject({
  // The SDK's decoder keeps the result's own fields; `resultType` is the wire's, read off by it.
  resultType: z.string().optional(),
  taskId: z.string().optional(),
  status: z.string().optional(),
});

let t: TestServer;
let agent: Client;

beforeAll(async () => {
  t = await startTestServer({ logLevel: 'error' });
  await requireApproval(t, TOOL);
  agent = new Client(
    { name: 'approval-tasks-e2e', version: '1.0.0' },
    { capabilities: TASKS, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${t.tokens.owner}` } },
    }),
  );
}, 180_000);

afterAll(async () => {
  await agent?.close();
  await t?.close();
});

/**
 * The call itself goes raw: the SDK refuses a `tools/call` answered with a task ("Unsupported
 * result type 'task' for tools/call", checked below), so an agent on it creates the task by hand.
 */
async function callTool(args: Record<string, unknown>): Promise<Json> {
  const res = await modernToolCall(t.url, t.tokens.owner, TOOL, args, {}, { capabilities: TASKS });
  expect(res.status).toBe(200);
  return res.body.result;
}

function getTask(taskId: string) {
  return agent.request({ method: 'tasks/get', params: { taskId } }, TaskResult);
}

async function decide(targetId: string, verb: 'approve' | 'deny', reason: string): Promise<void> {
  const approvals: Json = await (
    await t.request('/v1/mcp/approvals?status=pending', { token: 'member' })
  ).json();
  const mine = approvals.data.filter((a: Json) => a.tool === TOOL && a.target_id === targetId);
  expect(mine).toHaveLength(1);
  const res = await t.request(`/v1/mcp/approvals/${mine[0].id}/${verb}`, {
    method: 'POST',
    token: 'member',
    json: { reason },
  });
  expect(res.status, `${verb} the request for ${targetId}`).toBe(200);
}

async function settle(taskId: string): Promise<Json> {
  for (let i = 0; i < 50; i += 1) {
    const task: Json = await getTask(taskId);
    if (task.status !== 'working') return task;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`task ${taskId} did not settle`);
}

describe('approval as a task, with the official v2 SDK client', () => {
  it('the server advertises the extension; the call is a working task; approved → completed with the result, once', async () => {
    expect(agent.getServerCapabilities()?.extensions).toMatchObject({
      'io.modelcontextprotocol/tasks': {},
    });
    const target = await createPortalUser(t, 'SDK Task Target');
    await expect(
      agent.request(
        { method: 'tools/call', params: { name: TOOL, arguments: { id: target.id } } },
        TaskResult,
      ),
    ).rejects.toThrow(/Unsupported result type 'task'/);
    const created: Json = await callTool({ id: target.id });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    expect(created.statusMessage).toContain('another admin approves it');
    expect((await getTask(created.taskId)).status).toBe('working');
    expect(await portalUserStatus(t, target.id)).toBe(200);

    await decide(target.id, 'approve', 'fine');
    const done = await settle(created.taskId);
    expect(done.status).toBe('completed');
    expect(textJsonOf(done.result)).toMatchObject({ id: target.id });
    expect(await portalUserStatus(t, target.id)).toBe(404);
    // Polled again: the same outcome, nothing runs a second time.
    expect((await getTask(created.taskId)).result).toEqual(done.result);
  });

  it('denied → failed with the JSON-RPC error carrying approval_denied and the reason', async () => {
    const target = await createPortalUser(t, 'SDK Denied Target');
    const created: Json = await callTool({ id: target.id });
    await decide(target.id, 'deny', 'keep them');
    const failed = await settle(created.taskId);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({
      code: -31410,
      data: { error: { code: 'approval_denied', message: expect.stringContaining('keep them') } },
    });
    expect(await portalUserStatus(t, target.id)).toBe(200);
  });
});
