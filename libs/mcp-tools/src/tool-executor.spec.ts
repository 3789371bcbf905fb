// oxlint-disable typescript/no-unsafe-type-assertion -- test doubles stand in for the Nest providers the executor receives
import { describe, expect, it, vi } from 'vitest';
import { PolicyTools } from '@app/confirmation-policies';
import { ROLE_PERMISSIONS, type Scope } from '@app/access-vocabulary';
import type { CallerContext, Principal } from '@app/identity';
import { McpError, type McpRequestContext } from '@app/mcp-transport';
import { testPrincipal, testRequestContext, testAccessPolicy } from '@app/testing';
import type { DestructiveToolGate } from './destructive-tool.gate.js';
import type { GateDecision } from './gate-decision.js';
import type { McpCallExtra } from './mcp-call-extra.js';
import type { RestDispatcher, RestResponse } from './rest-dispatcher.js';
import type { ToolCallObserver, ToolCallOutcome } from './tool-call.observer.js';
import { ToolCatalog } from './tool-catalog.js';
import type { McpTask, TasksRepository } from '@app/mcp-tasks';
import type { TaskRunner } from './task-runner.js';
import { APPROVAL_TASK_LEASE_SECONDS, ToolExecutor } from './tool-executor.js';

const USER_ID = '6f1c2a8e-0d7b-4c39-9a51-1b2e3c4d5e6f';

function principal(scopes: Scope[] = ['portal_users:write']): Principal {
  return testPrincipal({
    scopes,
    membership: { id: 'm1', status: 'active', role: 'owner', permissions: ROLE_PERMISSIONS.owner },
  });
}

function ctx(era: 'legacy' | 'modern' = 'modern'): McpRequestContext {
  return testRequestContext({ era });
}

function setup(answers: { rest?: RestResponse[]; gate?: GateDecision } = {}) {
  const rest = [...(answers.rest ?? [])];
  const dispatched: Array<{ caller: CallerContext; method: string; path: string; input: unknown }> =
    [];
  const dispatch = vi.fn<RestDispatcher['dispatch']>((caller, contract, input) => {
    dispatched.push({ caller, method: contract.method, path: contract.path, input });
    const next = rest.shift();
    if (next === undefined) throw new Error('unexpected dispatch');
    return Promise.resolve(next);
  });
  const check = vi.fn<DestructiveToolGate['check']>(() =>
    Promise.resolve(answers.gate ?? { kind: 'proceed', confirmationId: 'x' }),
  );
  const observed: ToolCallOutcome[] = [];
  const completed = vi.fn<ToolCallObserver['completed']>((o) => {
    observed.push(o);
    return Promise.resolve();
  });
  const policy = testAccessPolicy();
  const executor = new ToolExecutor(
    new ToolCatalog(),
    policy,
    { dispatch } as unknown as RestDispatcher,
    { check } as unknown as DestructiveToolGate,
    { completed } as unknown as ToolCallObserver,
    new PolicyTools(),
    {} as unknown as TaskRunner,
    {} as unknown as TasksRepository,
  );
  return { executor, dispatched, observed, check };
}

function extra(p = principal()): McpCallExtra {
  return { principal: p, requestId: 'req-1', correlationId: null };
}

describe('ToolExecutor', () => {
  it('refuses an unknown tool as a protocol error and records the attempted name once', async () => {
    const s = setup();
    await expect(s.executor.call({ name: 'no_such_tool' }, ctx(), extra())).rejects.toBeInstanceOf(
      McpError,
    );
    expect(s.observed).toHaveLength(1);
    expect(s.observed[0]).toMatchObject({
      tool: null,
      attemptedTool: 'no_such_tool',
      status: 'rpc_error:-32602',
      args: undefined,
      consumedConfirmation: false,
    });
    expect(s.dispatched).toHaveLength(0);
  });

  it('refuses an undeclared argument before any check or dispatch', async () => {
    const s = setup();
    await expect(
      s.executor.call(
        { name: 'get_portal_user', arguments: { id: USER_ID, extra: 1 } },
        ctx(),
        extra(),
      ),
    ).rejects.toMatchObject({ message: expect.stringContaining('Unknown argument "extra"') });
    expect(s.observed[0]?.status).toBe('rpc_error:-32602');
    expect(s.dispatched).toHaveLength(0);
  });

  it('answers an authorization refusal as an isError result carrying the envelope; nothing is dispatched', async () => {
    const s = setup();
    const outcome = await s.executor.call(
      { name: 'get_portal_user', arguments: { id: USER_ID } },
      ctx(),
      extra(principal(['accounts:read'])),
    );
    expect(outcome).toMatchObject({ kind: 'complete', result: { isError: true } });
    expect(s.observed[0]).toMatchObject({ status: 'insufficient_scope', args: { id: USER_ID } });
    expect(s.dispatched).toHaveLength(0);
  });

  it('dispatches a read with the path parameter as a param and the rest as the query', async () => {
    const body = { id: USER_ID, name: 'P' };
    const s = setup({ rest: [{ status: 200, body, text: JSON.stringify(body) }] });
    const outcome = await s.executor.call(
      { name: 'get_portal_user', arguments: { id: USER_ID } },
      ctx(),
      extra(),
    );
    expect(outcome).toMatchObject({
      kind: 'complete',
      result: { structuredContent: body },
    });
    expect(s.dispatched[0]).toMatchObject({
      method: 'GET',
      path: '/v1/portal-users/:id',
      input: { params: { id: USER_ID }, query: {} },
    });
    expect(s.dispatched[0]?.caller).toMatchObject({ channel: 'mcp', confirmationId: null });
    expect(s.observed[0]).toMatchObject({ status: 'ok', readOnly: true, confirmationId: null });
  });

  it('a REST error answer becomes an isError result with that envelope and status', async () => {
    const envelope = { error: { code: 'NOT_FOUND', message: 'Portal user not found' } };
    const s = setup({ rest: [{ status: 404, body: envelope }] });
    const outcome = await s.executor.call(
      { name: 'get_portal_user', arguments: { id: USER_ID } },
      ctx(),
      extra(),
    );
    expect(outcome).toMatchObject({ kind: 'complete', result: { isError: true } });
    expect(s.observed[0]?.status).toBe('NOT_FOUND');
  });

  it('a REST 500 is a -32603 protocol error, never the endpoint’s text', async () => {
    const s = setup({ rest: [{ status: 500, body: { error: { code: 'INTERNAL_ERROR' } } }] });
    const call = s.executor.call(
      { name: 'get_portal_user', arguments: { id: USER_ID } },
      ctx(),
      extra(),
    );
    await expect(call).rejects.not.toBeInstanceOf(McpError);
    expect(s.observed[0]?.status).toBe('rpc_error:-32603');
  });

  describe('destructive tools', () => {
    const args = { name: 'delete_portal_user', arguments: { id: USER_ID } };

    it('asks first: input_required is answered as such, nothing is dispatched or consumed', async () => {
      const s = setup({
        gate: {
          kind: 'input_required',
          confirmationId: 'conf-1',
          inputRequests: { confirm: {} },
          requestState: 'state',
        },
      });
      const outcome = await s.executor.call(args, ctx(), extra());
      expect(outcome).toEqual({
        kind: 'input_required',
        inputRequests: { confirm: {} },
        requestState: 'state',
      });
      expect(s.dispatched).toHaveLength(0);
      expect(s.observed[0]).toMatchObject({
        status: 'input_required',
        confirmationId: 'conf-1',
        consumedConfirmation: false,
        readOnly: false,
      });
    });

    it('runs once the gate lets it through, with the confirmation on the caller; the confirmation is used up', async () => {
      const s = setup({
        gate: { kind: 'proceed', confirmationId: 'conf-2' },
        rest: [{ status: 204, body: undefined }],
      });
      const outcome = await s.executor.call(args, ctx(), extra());
      expect(outcome).toMatchObject({ kind: 'complete', result: { structuredContent: {} } });
      expect(s.dispatched[0]).toMatchObject({
        method: 'DELETE',
        path: '/v1/portal-users/:id',
        input: { params: { id: USER_ID } },
      });
      expect(s.dispatched[0]?.caller.confirmationId).toBe('conf-2');
      expect(s.observed[0]).toMatchObject({
        status: 'ok',
        confirmationId: 'conf-2',
        consumedConfirmation: true,
      });
    });

    it('a refusal by the gate is an isError result; nothing runs, nothing is consumed', async () => {
      const s = setup({
        gate: {
          kind: 'refused',
          confirmationId: null,
          envelope: { error: { code: 'confirmation_required', message: 'm' } },
        },
      });
      const outcome = await s.executor.call(args, ctx('legacy'), extra());
      expect(outcome).toMatchObject({ kind: 'complete', result: { isError: true } });
      expect(s.dispatched).toHaveLength(0);
      expect(s.observed[0]).toMatchObject({
        status: 'confirmation_required',
        consumedConfirmation: false,
      });
    });

    it('a failure after consumption still records the confirmation the call used', async () => {
      const s = setup({
        gate: { kind: 'proceed', confirmationId: 'conf-3' },
        rest: [{ status: 500, body: undefined }],
      });
      await expect(s.executor.call(args, ctx(), extra())).rejects.toBeDefined();
      expect(s.observed[0]).toMatchObject({
        status: 'rpc_error:-32603',
        confirmationId: 'conf-3',
        consumedConfirmation: true,
      });
    });

    it('the gate is asked only after the authorization checks pass', async () => {
      const s = setup();
      await s.executor.call(args, ctx(), extra(principal(['portal_users:read'])));
      expect(s.check).not.toHaveBeenCalled();
      expect(s.observed[0]?.status).toBe('insufficient_scope');
    });
  });

  describe('an approval task', () => {
    it('keeps its lease while the approved tool runs longer than the lease, and stops renewing once done', async () => {
      vi.useFakeTimers();
      try {
        const tasks = {
          claim: vi.fn<TasksRepository['claim']>(() => Promise.resolve(true)),
          renewClaim: vi.fn<TasksRepository['renewClaim']>(() => Promise.resolve(true)),
          release: vi.fn<TasksRepository['release']>(() => Promise.resolve()),
          complete: vi.fn<TasksRepository['complete']>(() => Promise.resolve(true)),
          fail: vi.fn<TasksRepository['fail']>(() => Promise.resolve(true)),
          findOwned: vi.fn<TasksRepository['findOwned']>(() => Promise.resolve(undefined)),
        };
        // The endpoint answers after two and a half leases.
        const slow = APPROVAL_TASK_LEASE_SECONDS * 2_500;
        const dispatch = vi.fn<RestDispatcher['dispatch']>(
          () =>
            new Promise((resolve) =>
              setTimeout(() => resolve({ status: 204, body: undefined }), slow),
            ),
        );
        const forApprovalTask = vi.fn<DestructiveToolGate['forApprovalTask']>(() =>
          Promise.resolve({ kind: 'proceed', confirmationId: null, approvalId: 'ap-1' }),
        );
        const executor = new ToolExecutor(
          new ToolCatalog(),
          testAccessPolicy(),
          { dispatch } as unknown as RestDispatcher,
          { forApprovalTask } as unknown as DestructiveToolGate,
          { completed: () => Promise.resolve() } as unknown as ToolCallObserver,
          new PolicyTools(),
          {} as unknown as TaskRunner,
          tasks as unknown as TasksRepository,
        );
        const task = {
          id: 'task-1',
          organizationId: 'org-1',
          userId: USER_ID,
          tokenId: 'tok-1',
          tool: 'delete_portal_user',
          arguments: { id: USER_ID },
          approvalId: 'ap-1',
          status: 'working',
        } as unknown as McpTask;

        const advanced = executor.advanceApprovalTask(task, ctx(), extra());
        await vi.advanceTimersByTimeAsync(slow);
        await advanced;
        expect(dispatch).toHaveBeenCalledOnce();
        expect(tasks.complete).toHaveBeenCalledOnce();
        // Renewed every third of the lease while the tool ran: the lease never lapsed under it.
        expect(tasks.renewClaim.mock.calls.length).toBe(7);
        expect(tasks.renewClaim).toHaveBeenCalledWith('task-1', APPROVAL_TASK_LEASE_SECONDS);
        expect(tasks.release).toHaveBeenCalledOnce();
        await vi.advanceTimersByTimeAsync(APPROVAL_TASK_LEASE_SECONDS * 3_000);
        expect(tasks.renewClaim.mock.calls.length).toBe(7);
      } finally {
        vi.useRealTimers();
      }
    });
  });
});
