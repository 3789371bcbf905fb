import { isJsonObject, normalizeClientString, unreachable } from '@app/common';
import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AccessPolicy } from '@app/access';
import { PolicyTools } from '@app/confirmation-policies';
import type { CallerContext } from '@app/identity';
import {
  declaresExtension,
  McpError,
  INVALID_PARAMS,
  TASKS_EXTENSION,
  type McpHandlerOutcome,
  type McpRequestContext,
} from '@app/mcp-transport';
import { annotateActiveSpan, capturesToolContent, inSpan, inSpanAsync } from '@app/tracing';
import { callerOf, type McpCallExtra } from './mcp-call-extra.js';
import { RestDispatcher } from './rest-dispatcher.js';
import { ToolCatalog, type CompiledExtensionTool, type CompiledTool } from './tool-catalog.js';
import { errorResult, successResult } from './tool-results.js';
import { DestructiveToolGate } from './destructive-tool.gate.js';
import type { GateDecision } from './gate-decision.js';
import { readArguments, readDeclaredArguments } from './tool-call.arguments.js';
import { dispatchTool } from './tool-call.dispatch.js';
import { ToolCallObserver } from './tool-call.observer.js';
import {
  namedTool,
  newStamp,
  NOTHING_YET,
  outcomeOf,
  type NamedTool,
  type Progress,
  type Stamp,
} from './tool-call.record.js';
import {
  approvalTaskError,
  asEnvelope,
  failed,
  refusedWith,
  statusOfOutcome,
  type Executed,
} from './tool-call.result.js';
import { TasksRepository, type McpTask } from '@app/mcp-tasks';
import {
  APPROVAL_TASK_GRACE_MS,
  APPROVAL_TASK_POLL_MS,
  TaskRunner,
  taskFields,
  TOOL_TASK_POLL_MS,
  TOOL_TASK_TTL_MS,
} from './task-runner.js';

/** The children of a `tools/call` span (its REST dispatch's is in `dispatchTool`). */
const SPAN_AUTHORIZE = 'mcp.authorize';
const SPAN_CONFIRMATION = 'mcp.confirmation';
/** The conventions' opt-in attributes of a `tools/call` span (the call's content, as JSON). */
const ATTR_ARGUMENTS = 'gen_ai.tool.call.arguments';
const ATTR_RESULT = 'gen_ai.tool.call.result';

/**
 * How long one replica holds an approval task while it runs the approved tool: concurrent polls
 * meanwhile see it `working`; a replica that died mid-run frees it after this. The replica
 * renews the lease every third of it while the tool runs, so a tool slower than the lease (a
 * raised `REQUEST_DEADLINE_MS`, a slow endpoint) is never taken for a dead run: without the
 * renewal, a poll after the lease lapsed found the approval already used and ended the task as
 * `confirmation_replayed` while the tool was still running, and the real result was lost.
 */
export const APPROVAL_TASK_LEASE_SECONDS = 60;

/**
 * Every `tools/call` goes through here, in this order: the tool exists → every argument is
 * declared → the four authorization checks → confirmation (destructive tools) → dispatch to the
 * REST endpoint in-process → map the answer → history, log line, metrics. Each step returns what
 * it decided; the observer records the finished call once.
 */
@Injectable()
export class ToolExecutor implements OnApplicationBootstrap {
  private readonly logger = new Logger(ToolExecutor.name);

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly policy: AccessPolicy,
    private readonly dispatcher: RestDispatcher,
    private readonly gate: DestructiveToolGate,
    private readonly observer: ToolCallObserver,
    private readonly policyTools: PolicyTools,
    private readonly runner: TaskRunner,
    private readonly tasks: TasksRepository,
  ) {}

  /**
   * A tool whose endpoint (or confirmation lookup) cannot be dispatched to fails the start-up.
   * Every tool that asks before it runs is one an organisation can set a confirmation policy for.
   */
  onApplicationBootstrap(): void {
    for (const name of this.catalog.names()) {
      const def = this.catalog.get(name)?.def;
      if (def === undefined) continue;
      this.dispatcher.assertDispatchable(def.endpoint);
      if (def.confirmation !== undefined) {
        if (def.confirmation.lookup !== undefined)
          this.dispatcher.assertDispatchable(def.confirmation.lookup);
        this.policyTools.declare([
          {
            name: def.name,
            title: def.annotations.title,
            kind: def.annotations.destructiveHint ? 'destructive' : 'write',
          },
        ]);
      }
    }
  }

  async call(
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<McpHandlerOutcome> {
    const stamp = newStamp();
    const name = params.name;
    if (typeof name !== 'string' || name === '')
      throw new McpError(INVALID_PARAMS, 'Invalid params: tool name is required');
    const tool = this.catalog.get(name);
    const added = tool === undefined ? this.catalog.extension(name) : undefined;
    // Opt-in only (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT): request data on the span.
    const capture = capturesToolContent();
    if (capture) annotateActiveSpan({ [ATTR_ARGUMENTS]: JSON.stringify(params.arguments ?? {}) });
    const executed =
      tool !== undefined
        ? await this.execute(tool, params, ctx, extra, stamp)
        : added !== undefined
          ? await this.executeExtension(added, params, ctx, extra)
          : failed(
              new McpError(INVALID_PARAMS, `Unknown tool: ${name}`, { name }),
              ctx,
              NOTHING_YET,
            );
    const named: NamedTool = {
      tool: tool === undefined && added === undefined ? null : name,
      attemptedTool: normalizeClientString(name) || 'unknown',
      readOnly: (tool?.def.annotations ?? added?.annotations)?.readOnlyHint ?? true,
    };
    await this.finish(stamp, named, ctx, extra, executed);
    if (capture && executed.outcome?.kind === 'complete')
      annotateActiveSpan({ [ATTR_RESULT]: JSON.stringify(executed.outcome.result) });
    if (executed.outcome !== undefined) return executed.outcome;
    throw executed.error;
  }

  private async execute(
    tool: CompiledTool,
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
    stamp: Stamp,
  ): Promise<Executed> {
    let progress = NOTHING_YET;
    try {
      const args = readArguments(tool, params.arguments);
      progress = { ...progress, args };
      const refusal = inSpan(SPAN_AUTHORIZE, () =>
        this.policy.evaluate(extra.principal, tool.access),
      );
      if (refusal !== null) return refusedWith(refusal.toEnvelope(), progress);

      const caller = callerOf(ctx, extra);
      const spec = tool.def.confirmation;
      if (spec !== undefined) {
        const decision = await inSpanAsync(SPAN_CONFIRMATION, () =>
          this.gate.check(tool, spec, args, params, ctx, caller),
        );
        progress = {
          ...progress,
          confirmationId: decision.confirmationId,
          approvalId: approvalOf(decision),
        };
        switch (decision.kind) {
          case 'input_required':
            return {
              ...progress,
              status: 'input_required',
              outcome: {
                kind: 'input_required',
                inputRequests: decision.inputRequests,
                requestState: decision.requestState,
              },
            };
          case 'refused':
            return refusedWith(decision.envelope, progress);
          case 'rpc_error':
            return failed(decision.error, ctx, progress);
          case 'await_approval': {
            // A client that speaks tasks waits for the admins' decision as a task, not a refusal.
            const task = await this.runner.create(extra.principal, {
              tool: tool.def.name,
              arguments: args,
              approvalId: decision.approvalId,
              statusMessage: decision.message,
              inputResponses: {},
              // The request may be decided until it lapses, and used for as long again after.
              ttlMs: Math.max(
                1,
                decision.expiresAt.getTime() -
                  Date.now() +
                  decision.expirySeconds * 1000 +
                  APPROVAL_TASK_GRACE_MS,
              ),
              pollIntervalMs: APPROVAL_TASK_POLL_MS,
            });
            return {
              ...progress,
              status: 'approval_pending',
              outcome: { kind: 'task', task: taskFields(task) },
            };
          }
          case 'proceed':
            progress = { ...progress, consumedConfirmation: decision.confirmationId !== null };
            caller.confirmationId = decision.confirmationId;
            break;
          default:
            return unreachable(decision);
        }
      }
      return await this.dispatchDecided(tool, args, ctx, extra, stamp, progress, caller);
    } catch (err) {
      return failed(err, ctx, progress);
    }
  }

  /** Runs a tool whose checks and confirmation passed: dispatch, then the REST answer as a result. */
  private async dispatchDecided(
    tool: CompiledTool,
    args: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
    stamp: Stamp,
    progress: Progress,
    caller: CallerContext,
  ): Promise<Executed> {
    // A write's history row commits in the write's own transaction, with its audit event: the
    // call is answered ok only once all three are in, and none is left without the others.
    let historyWritten = false;
    if (!tool.def.annotations.readOnlyHint) {
      caller.withWrite = async (tx) => {
        await this.observer.recordWithWrite(
          outcomeOf(stamp, namedTool(tool), ctx, extra, { ...progress, status: 'ok' }),
          tx,
        );
        historyWritten = true;
      };
    }
    const response = await dispatchTool(this.dispatcher, this.logger, tool, args, caller);
    caller.withWrite = undefined;
    if (response.status < 200 || response.status >= 300) {
      // Its transaction rolled back, the row with it: the observer writes the refusal's row.
      return refusedWith(asEnvelope(response), progress);
    }
    const result =
      response.body === undefined || response.body === null
        ? successResult({}, ctx.protocolVersion)
        : successResult(response.body, ctx.protocolVersion, response.text);
    return { ...progress, status: 'ok', historyWritten, outcome: { kind: 'complete', result } };
  }

  /**
   * `tasks/get` of a task that waits for an admin's approval, by its requester: one replica at a
   * time (a lease on the task) asks the gate about the request under the policy in force. Still
   * pending: unchanged. Approved: this caller uses it once and the tool runs now, with the
   * poller's own credentials (the four checks again), its history row and audit trail as any
   * call's; the task completes with the result (an API refusal is `isError` in it). Denied or
   * expired: the task fails with the API envelope. Returns the task as it is after.
   */
  async advanceApprovalTask(
    task: McpTask,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<McpTask> {
    const owner = { organizationId: task.organizationId, userId: task.userId };
    if (task.approvalId === null || task.status !== 'working') return task;
    if (!(await this.tasks.claim(task.id, APPROVAL_TASK_LEASE_SECONDS))) return task;
    const renew = setInterval(
      () => {
        this.tasks
          .renewClaim(task.id, APPROVAL_TASK_LEASE_SECONDS)
          .catch((err: unknown) =>
            this.logger.warn({ err, taskId: task.id }, 'approval task lease not renewed'),
          );
      },
      (APPROVAL_TASK_LEASE_SECONDS * 1000) / 3,
    );
    renew.unref();
    try {
      await this.decideApprovalTask(task, task.approvalId, ctx, extra);
    } finally {
      clearInterval(renew);
      await this.tasks.release(task.id);
    }
    return (await this.tasks.findOwned(task.id, owner)) ?? task;
  }

  private async decideApprovalTask(
    task: McpTask,
    approvalId: string,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<void> {
    const tool = this.catalog.get(task.tool);
    if (tool === undefined) {
      await this.tasks.fail(task.id, this.runner.taskError(new Error('no such tool'), task, extra));
      return;
    }
    const caller = callerOf(ctx, extra);
    const refusal = this.policy.evaluate(extra.principal, tool.access);
    if (refusal !== null) {
      await this.tasks.complete(task.id, errorResult(refusal.toEnvelope()));
      return;
    }
    let decision;
    try {
      decision = await this.gate.forApprovalTask(tool, approvalId, caller);
    } catch (err) {
      // The database could not answer: the task stays as it is; the next poll asks again.
      this.logger.warn(
        { err, requestId: extra.requestId, taskId: task.id },
        'approval task not advanced',
      );
      return;
    }
    switch (decision.kind) {
      case 'await_approval':
      case 'input_required':
      case 'rpc_error': // not answered for `approval` (URL elicitation is the `verified` mode's)
        return;
      case 'refused': {
        const code = decision.envelope.error.code;
        if (code === 'approval_denied' || code === 'approval_expired')
          await this.tasks.fail(task.id, approvalTaskError(decision.envelope));
        // `confirmation_replayed`: the approval was used by another call (a retry without tasks,
        // or another task of the same call) while this task holds its lease, so it never runs
        // here: the task ends as that retry would, with the tool error.
        else await this.tasks.complete(task.id, errorResult(decision.envelope));
        return;
      }
      case 'proceed':
        break;
      default:
        unreachable(decision);
    }
    const stamp = newStamp();
    let executed: Executed;
    const progress: Progress = {
      args: task.arguments,
      confirmationId: null,
      approvalId,
      consumedConfirmation: false,
    };
    try {
      executed = await this.dispatchDecided(
        tool,
        task.arguments,
        ctx,
        extra,
        stamp,
        progress,
        caller,
      );
    } catch (err) {
      executed = failed(err, ctx, progress);
    }
    await this.finish(stamp, namedTool(tool), ctx, extra, executed);
    if (executed.outcome?.kind === 'complete') {
      await this.tasks.complete(task.id, executed.outcome.result);
    } else {
      await this.tasks.fail(task.id, this.runner.taskError(executed.error, task, extra));
    }
  }

  /**
   * A tool an extension module added (not a REST endpoint): the same declared-names and
   * authorization checks, then the tool itself (it may answer `input_required`, use the request
   * channel, or fail with `isError`).
   */
  private async executeExtension(
    tool: CompiledExtensionTool,
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ): Promise<Executed> {
    let progress = NOTHING_YET;
    try {
      const args = readDeclaredArguments(tool.name, tool.argumentNames, params.arguments);
      progress = { ...progress, args };
      const refusal = this.policy.evaluate(extra.principal, tool.access);
      if (refusal !== null) return refusedWith(refusal.toEnvelope(), progress);
      const speaksTasks =
        ctx.era === 'modern' && declaresExtension(ctx.clientCapabilities, TASKS_EXTENSION);
      if (tool.taskSupport === 'required' && !speaksTasks)
        throw McpError.missingClientCapability({ extensions: { [TASKS_EXTENSION]: {} } });
      if (tool.taskSupport !== undefined && speaksTasks) {
        const early = await tool.beforeTask?.(args, params, ctx, extra);
        if (early !== undefined)
          return { ...progress, status: statusOfOutcome(early), outcome: early };
        const task = await this.runner.create(extra.principal, {
          tool: tool.name,
          arguments: args,
          approvalId: null,
          statusMessage: null,
          inputResponses: isJsonObject(params.inputResponses) ? params.inputResponses : {},
          ttlMs: TOOL_TASK_TTL_MS,
          pollIntervalMs: TOOL_TASK_POLL_MS,
        });
        this.runner.start(task, tool, ctx, extra);
        return { ...progress, status: 'ok', outcome: { kind: 'task', task: taskFields(task) } };
      }
      const outcome = await tool.run(args, params, ctx, extra);
      return { ...progress, status: statusOfOutcome(outcome), outcome };
    } catch (err) {
      return failed(err, ctx, progress);
    }
  }

  /**
   * A finished call, once: its log line and metrics, and its history row unless the row already
   * committed with the call's write.
   */
  private async finish(
    stamp: Stamp,
    named: NamedTool,
    ctx: McpRequestContext,
    extra: McpCallExtra,
    executed: Executed,
  ): Promise<void> {
    await this.observer.completed(outcomeOf(stamp, named, ctx, extra, executed), {
      historyWritten: executed.historyWritten === true,
    });
  }
}

/** The approval request a gate's decision is about: the one used, awaited, or refused for. */
function approvalOf(decision: GateDecision): string | null {
  switch (decision.kind) {
    case 'proceed':
    case 'refused':
      return decision.approvalId ?? null;
    case 'await_approval':
      return decision.approvalId;
    case 'input_required':
    case 'rpc_error':
      return null;
    default:
      return unreachable(decision);
  }
}
