// oxlint-disable typescript/no-unsafe-type-assertion -- test doubles stand in for the Nest providers the handler receives
import { describe, expect, it, vi } from 'vitest';
import type { ApprovalRequests, Withdrawal } from '@app/approvals';
import type { McpTask, TasksRepository } from '@app/mcp-tasks';
import { McpError } from '@app/mcp-transport';
import { testPrincipal, testRequestContext } from '@app/testing';
import type { McpCallExtra } from './mcp-call-extra.js';
import type { TaskRunner } from './task-runner.js';
import { TasksHandler } from './tasks.handler.js';
import type { ToolCatalog } from './tool-catalog.js';
import type { ToolExecutor } from './tool-executor.js';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const extra: McpCallExtra = {
  principal: testPrincipal(),
  requestId: 'req-1',
  correlationId: null,
};

function task(over: Partial<McpTask> = {}): McpTask {
  const at = new Date('2026-12-04T10:00:00.000Z');
  return {
    id: '6f1c3f7e-8a2b-4c1d-9e0f-123456789abc',
    organizationId: extra.principal.organizationId,
    userId: extra.principal.userId,
    tokenId: extra.principal.tokenId,
    tool: 'delete_portal_user',
    arguments: { id: 'u1' },
    approvalId: null,
    status: 'working',
    statusMessage: null,
    inputRequests: null,
    inputResponses: {},
    result: null,
    error: null,
    ttlMs: 60_000,
    pollIntervalMs: 500,
    createdAt: at,
    lastUpdatedAt: at,
    expiresAt: new Date(at.getTime() + 60_000),
    ...over,
  };
}

function setup(found: McpTask | undefined, withdrawal: Withdrawal = 'withdrawn') {
  const repo = {
    findOwned: vi.fn<() => Promise<McpTask | undefined>>(() => Promise.resolve(found)),
    cancel: vi.fn<() => Promise<boolean>>(() => Promise.resolve(true)),
  };
  const runner = { abortLocal: vi.fn<(taskId: string) => void>() };
  const executor = {
    advanceApprovalTask: vi.fn<(t: McpTask) => Promise<McpTask>>((t) => Promise.resolve(t)),
  };
  const approvals = {
    withdraw: vi.fn<() => Promise<Withdrawal>>(() => Promise.resolve(withdrawal)),
  };
  const handler = new TasksHandler(
    repo as unknown as TasksRepository,
    runner as unknown as TaskRunner,
    executor as unknown as ToolExecutor,
    {} as unknown as ToolCatalog,
    approvals as unknown as ApprovalRequests,
  );
  return { handler, repo, runner, executor, approvals };
}

const declaring = testRequestContext({ clientCapabilities: TASKS });

describe('TasksHandler', () => {
  it('refuses every method with -32021 when the request did not declare the extension', async () => {
    const { handler, repo } = setup(task());
    const plain = testRequestContext({ clientCapabilities: {} });
    for (const call of [
      () => handler.get({ taskId: 'x' }, plain, extra),
      () => handler.cancel({ taskId: 'x' }, plain, extra),
      () => handler.update({ taskId: 'x', inputResponses: {} }, plain, extra),
    ]) {
      await expect(call()).rejects.toMatchObject({
        code: -32021,
        data: { requiredCapabilities: TASKS },
      });
    }
    expect(repo.findOwned).not.toHaveBeenCalled();
  });

  it('answers -32602 "unknown task" when the owner has no such task, and for a missing taskId', async () => {
    const { handler, repo } = setup(undefined);
    const err = await handler.get({ taskId: 'nope' }, declaring, extra).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect(err).toMatchObject({ code: -32602, message: 'Invalid params: unknown task' });
    expect(repo.findOwned).toHaveBeenCalledWith('nope', {
      organizationId: extra.principal.organizationId,
      userId: extra.principal.userId,
    });
    await expect(handler.get({}, declaring, extra)).rejects.toMatchObject({ code: -32602 });
  });

  it('inlines the outcome by status and advances only a working approval task', async () => {
    const done = task({ status: 'completed', result: { content: [] } });
    const { handler, executor } = setup(done);
    const got = await handler.get({ taskId: done.id }, declaring, extra);
    expect(got).toEqual({
      kind: 'complete',
      result: expect.objectContaining({
        taskId: done.id,
        status: 'completed',
        result: { content: [] },
      }),
    });
    expect(executor.advanceApprovalTask).not.toHaveBeenCalled();
    const waiting = setup(task({ approvalId: 'a1' }));
    await waiting.handler.get({ taskId: 'x' }, declaring, extra);
    expect(waiting.executor.advanceApprovalTask).toHaveBeenCalledOnce();
  });

  it('cancel withdraws the approval first; an approval already used is not cancelled; a finished task is acknowledged alone', async () => {
    const open = setup(task({ approvalId: 'a1' }));
    expect(await open.handler.cancel({ taskId: 'x' }, declaring, extra)).toEqual({
      kind: 'complete',
      result: {},
    });
    expect(open.approvals.withdraw).toHaveBeenCalledOnce();
    expect(open.repo.cancel).toHaveBeenCalledOnce();
    expect(open.runner.abortLocal).toHaveBeenCalledOnce();

    const used = setup(task({ approvalId: 'a1' }), 'executed');
    await used.handler.cancel({ taskId: 'x' }, declaring, extra);
    expect(used.repo.cancel).not.toHaveBeenCalled();

    const finished = setup(task({ status: 'failed', error: { code: -1, message: 'x' } }));
    await finished.handler.cancel({ taskId: 'x' }, declaring, extra);
    expect(finished.repo.cancel).not.toHaveBeenCalled();
    expect(finished.approvals.withdraw).not.toHaveBeenCalled();
  });
});
