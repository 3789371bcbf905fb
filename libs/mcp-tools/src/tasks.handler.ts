import { Injectable } from '@nestjs/common';
import { isJsonObject } from '@app/common';
import { ApprovalRequests } from '@app/approvals';
import {
  declaresExtension,
  INVALID_PARAMS,
  McpError,
  TASKS_EXTENSION,
  type McpHandlerOutcome,
  type McpRequestContext,
} from '@app/mcp-transport';
import { isTerminal, TasksRepository, type McpTask, type TaskOwner } from '@app/mcp-tasks';
import { callerOf, type McpCallExtra } from './mcp-call-extra.js';
import { detailedTask, TaskRunner } from './task-runner.js';
import { ToolCatalog } from './tool-catalog.js';
import { ToolExecutor } from './tool-executor.js';

/** The acknowledgement of `tasks/cancel` and `tasks/update`: no task fields (read them with get). */
const ACK: McpHandlerOutcome = { kind: 'complete', result: {} };

/**
 * `tasks/get`, `tasks/update` and `tasks/cancel` (the tasks extension, 2026-07-28). Only a client
 * that declares the extension in the request's capabilities may call them (-32021 otherwise), and
 * a task is visible only to its owner — the person and organisation of the token that created it,
 * whichever of their tokens asks — until it expires; to anyone else it does not exist (-32602,
 * the same answer as for an id never issued). Any replica answers: the task is in the database.
 */
@Injectable()
export class TasksHandler {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly runner: TaskRunner,
    private readonly executor: ToolExecutor,
    private readonly catalog: ToolCatalog,
    private readonly approvals: ApprovalRequests,
  ) {}

  /** The task with its outcome inlined; a task waiting for an approval is advanced first. */
  async get(
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<McpHandlerOutcome> {
    const task = await this.owned(params, ctx, extra);
    const now =
      task.approvalId !== null && task.status === 'working'
        ? await this.executor.advanceApprovalTask(task, ctx, extra)
        : task;
    return { kind: 'complete', result: detailedTask(now) };
  }

  /**
   * Cancels an open task (idempotent: a finished one answers the same acknowledgement). A task
   * waiting for an approval withdraws its request first; one whose approval was already used is
   * running the tool and finishes with its result.
   */
  async cancel(
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<McpHandlerOutcome> {
    const task = await this.owned(params, ctx, extra);
    if (isTerminal(task.status)) return ACK;
    if (task.approvalId !== null) {
      const withdrawal = await this.approvals.withdraw(task.approvalId, callerOf(ctx, extra));
      if (withdrawal === 'executed') return ACK;
    }
    if (await this.tasks.cancel(task.id, ownerOf(extra))) this.runner.abortLocal(task.id);
    return ACK;
  }

  /**
   * The client's answers to a task's input requests (keys it is not asking are ignored); once
   * every request is answered the task is `working` again and its tool runs on this replica with
   * all the answers.
   */
  async update(
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<McpHandlerOutcome> {
    assertDeclared(ctx);
    const id = taskIdOf(params);
    const responses = params.inputResponses;
    if (!isJsonObject(responses))
      throw new McpError(INVALID_PARAMS, 'Invalid params: inputResponses must be an object');
    const answered = await this.tasks.answer(id, ownerOf(extra), responses);
    if (answered === undefined) throw unknownTask(id);
    if (answered.resumed) {
      const tool = this.catalog.extension(answered.task.tool);
      if (tool === undefined) {
        const error = this.runner.taskError(new Error('no such tool'), answered.task, extra);
        await this.tasks.fail(answered.task.id, error);
      } else {
        this.runner.start(answered.task, tool, ctx, extra);
      }
    }
    return ACK;
  }

  private async owned(
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<McpTask> {
    assertDeclared(ctx);
    const id = taskIdOf(params);
    const task = await this.tasks.findOwned(id, ownerOf(extra));
    if (task === undefined) throw unknownTask(id);
    return task;
  }
}

function assertDeclared(ctx: McpRequestContext): void {
  if (!declaresExtension(ctx.clientCapabilities, TASKS_EXTENSION))
    throw McpError.missingClientCapability({ extensions: { [TASKS_EXTENSION]: {} } });
}

function taskIdOf(params: Record<string, unknown>): string {
  const id = params.taskId;
  if (typeof id !== 'string' || id === '')
    throw new McpError(INVALID_PARAMS, 'Invalid params: taskId is required');
  return id;
}

function ownerOf(extra: McpCallExtra): TaskOwner {
  return { organizationId: extra.principal.organizationId, userId: extra.principal.userId };
}

/** Unknown, expired, or someone else's: one answer, so a task's existence never leaks. */
function unknownTask(id: string): McpError {
  return new McpError(INVALID_PARAMS, 'Invalid params: unknown task', { taskId: id });
}
