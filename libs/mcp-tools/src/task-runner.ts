import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Principal } from '@app/identity';
import {
  detachedChannel,
  INTERNAL_ERROR,
  McpError,
  type McpRequestContext,
} from '@app/mcp-transport';
import {
  TasksRepository,
  type McpTask,
  type NewTask,
  type TaskError,
  type TaskOwner,
} from '@app/mcp-tasks';
import type { McpCallExtra } from './mcp-call-extra.js';
import type { CompiledExtensionTool } from './tool-catalog.js';

/** How long a task a tool runs stays readable (after that it is swept). */
export const TOOL_TASK_TTL_MS = 3_600_000;
/** How often a client should poll a task a tool runs. */
export const TOOL_TASK_POLL_MS = 500;
/** How often a client should poll a task that waits for an admin's approval. */
export const APPROVAL_TASK_POLL_MS = 5_000;
/**
 * How long an approval task stays readable after its request lapses: time for the requester's
 * client to poll once more and read how it ended.
 */
export const APPROVAL_TASK_GRACE_MS = 3_600_000;
/** How often a replica running a task's tool checks whether another replica cancelled it. */
const CANCEL_WATCH_MS = 1_000;
/** At most this often (per replica) expired tasks are swept, after a task is created. */
const SWEEP_EVERY_MS = 60_000;
const SWEEP_BATCH = 500;

/** What a new task needs besides its owner and token (the principal gives those). */
export type TaskStart = Omit<NewTask, keyof TaskOwner | 'tokenId'>;

/**
 * Creates tasks and runs the tools of extension tasks. A task is durable (`mcp_tasks`) before its
 * `CreateTaskResult` is answered, so any replica can read it at once; the tool runs on the replica
 * that created (or resumed) it, after the answer was sent, and its outcome is written with a
 * conditional update, so a task cancelled meanwhile (on any replica) stays cancelled. A replica
 * running a tool watches the task's status and aborts the tool's signal when it was cancelled;
 * on shutdown, its unfinished tasks fail (the client is told, not left polling).
 */
@Injectable()
export class TaskRunner implements OnModuleDestroy {
  private readonly logger = new Logger(TaskRunner.name);
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private lastSweep = 0;

  constructor(private readonly tasks: TasksRepository) {}

  async create(principal: Principal, start: TaskStart): Promise<McpTask> {
    const task = await this.tasks.insert({
      organizationId: principal.organizationId,
      userId: principal.userId,
      tokenId: principal.tokenId,
      ...start,
    });
    this.sweepSometimes();
    return task;
  }

  /** Runs `tool` for `task` in the background (the task is `working`); returns at once. */
  start(
    task: McpTask,
    tool: CompiledExtensionTool,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): void {
    const abort = new AbortController();
    const watch = setInterval(() => {
      this.tasks.statusOf(task.id).then(
        (status) => {
          if (status === undefined || status === 'cancelled') abort.abort();
        },
        () => undefined, // the next tick asks again
      );
    }, CANCEL_WATCH_MS);
    watch.unref();
    const params = {
      name: task.tool,
      arguments: task.arguments,
      inputResponses: task.inputResponses,
    };
    // No stream outlives the request that created the task: progress and logs go nowhere, and
    // the signal is the task's cancellation.
    const taskCtx: McpRequestContext = {
      ...ctx,
      channel: { ...detachedChannel(), signal: abort.signal },
    };
    const done = this.runTool(task, tool, params, taskCtx, extra, abort.signal).finally(() => {
      clearInterval(watch);
      this.running.delete(task.id);
    });
    this.running.set(task.id, { abort, done });
  }

  /** The task was cancelled on this replica: stop its tool now (elsewhere: within a second). */
  abortLocal(taskId: string): void {
    this.running.get(taskId)?.abort.abort();
  }

  async onModuleDestroy(): Promise<void> {
    const running = [...this.running.entries()];
    for (const [, run] of running) run.abort.abort();
    await Promise.all(
      running.map(async ([id, run]) => {
        await run.done;
        await this.tasks
          .fail(id, {
            code: INTERNAL_ERROR,
            message: 'The server stopped while the task ran; call the tool again.',
          })
          .catch((err: unknown) => this.logger.warn({ err, taskId: id }, 'could not fail a task'));
      }),
    );
  }

  private async runTool(
    task: McpTask,
    tool: CompiledExtensionTool,
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
    signal: AbortSignal,
  ): Promise<void> {
    try {
      const outcome = await tool.run(task.arguments, params, ctx, extra);
      if (signal.aborted) return;
      switch (outcome.kind) {
        case 'complete':
          await this.tasks.complete(task.id, outcome.result);
          return;
        case 'input_required':
          if (
            outcome.inputRequests === undefined ||
            Object.keys(outcome.inputRequests).length === 0
          )
            throw new Error(`${task.tool} asked for input without input requests`);
          await this.tasks.awaitInput(task.id, outcome.inputRequests);
          return;
        case 'task':
          throw new Error(`${task.tool} answered a task from within a task`);
      }
    } catch (err) {
      if (signal.aborted) return;
      await this.tasks
        .fail(task.id, this.taskError(err, task, extra))
        .catch((e: unknown) =>
          this.logger.warn({ err: e, taskId: task.id }, 'could not fail a task'),
        );
    }
  }

  /** A failure as the JSON-RPC error a failed task inlines; anything unexpected is logged. */
  taskError(err: unknown, task: Pick<McpTask, 'id' | 'tool'>, extra: McpCallExtra): TaskError {
    if (err instanceof McpError) {
      const error: TaskError = { code: err.codeFor('modern'), message: err.message };
      if (err.data !== undefined) error.data = err.data;
      return error;
    }
    this.logger.error(
      { err, requestId: extra.requestId, taskId: task.id, tool: task.tool },
      'MCP task failed unexpectedly',
    );
    return {
      code: INTERNAL_ERROR,
      message: 'Internal error',
      data: { requestId: extra.requestId },
    };
  }

  private sweepSometimes(): void {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    this.tasks
      .sweep(SWEEP_BATCH)
      .catch((err: unknown) => this.logger.warn({ err }, 'could not sweep expired tasks'));
  }
}

/** A task's fields on the wire (ISO timestamps, integer milliseconds), without its outcome. */
export function taskFields(task: McpTask): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    taskId: task.id,
    status: task.status,
    createdAt: task.createdAt.toISOString(),
    lastUpdatedAt: task.lastUpdatedAt.toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
  if (task.statusMessage !== null) fields.statusMessage = task.statusMessage;
  return fields;
}

/** `tasks/get`'s task: its fields and, by status, the inlined result, error or input requests. */
export function detailedTask(task: McpTask): Record<string, unknown> {
  const fields = taskFields(task);
  if (task.status === 'completed' && task.result !== null) fields.result = task.result;
  if (task.status === 'failed' && task.error !== null) fields.error = task.error;
  if (task.status === 'input_required' && task.inputRequests !== null)
    fields.inputRequests = task.inputRequests;
  return fields;
}
