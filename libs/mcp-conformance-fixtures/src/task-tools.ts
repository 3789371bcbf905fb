import { isJsonObject } from '@app/common';
import type { ExtensionTool } from '@app/mcp-tools';
import { INTERNAL_ERROR, INVALID_PARAMS, McpError } from '@app/mcp-transport';
import type { ClientInput } from './client-input.js';
import { argString, contentString, done, elicit, text, tool } from './fixture-kit.js';

/** The longest `slow_compute` accepted: the suite's longest is a minute (then cancelled). */
const MAX_SECONDS = 300;

/**
 * The tasks extension's fixtures (the suite's tasks-* scenarios). They run through the same task
 * machinery as the approval tasks: the executor creates the task (durable before it answers), the
 * task runner runs the tool on this replica and writes its outcome, `tasks/get`, `tasks/update`
 * and `tasks/cancel` work from any replica.
 */
export function taskTools(input: ClientInput): ExtensionTool[] {
  return [
    tool(
      'greet',
      'Greets someone by name (never a task).',
      (args) => Promise.resolve(done(text(`Hello, ${argString(args, 'name', 'World')}!`))),
      {
        type: 'object',
        properties: { name: { type: 'string', description: 'Who to greet.' } },
      },
    ),
    withTasks('optional', {
      ...tool(
        'slow_compute',
        'Sleeps for `seconds`, then answers (a task for a client that speaks tasks; cancellable).',
        async (args, _params, ctx) => {
          const seconds = secondsOf(args.seconds);
          await sleep(seconds * 1000, ctx.channel.signal);
          return done(
            text(`Computed ${argString(args, 'label', 'result')} after ${seconds} seconds.`),
          );
        },
        {
          type: 'object',
          properties: {
            seconds: { type: 'number', description: 'How long to work, 0 to 300.' },
            label: { type: 'string', description: 'Named in the answer.' },
          },
        },
      ),
    }),
    withTasks('required', {
      ...tool(
        'failing_job',
        'Works for a second, then reports a tool error.',
        async (_a, _p, ctx) => {
          await sleep(1000, ctx.channel.signal);
          return {
            kind: 'complete',
            result: { content: [text('The job failed (on purpose).')], isError: true },
          };
        },
      ),
    }),
    withTasks('required', {
      ...tool(
        'protocol_error_job',
        'Works briefly, then fails with a protocol error (not a tool error).',
        async (_a, _p, ctx) => {
          await sleep(200, ctx.channel.signal);
          throw new McpError(INTERNAL_ERROR, 'The job crashed (on purpose).');
        },
      ),
    }),
    withTasks('optional', {
      ...tool(
        'confirm_delete',
        'Asks the person to confirm deleting `filename`, then reports the answer.',
        async (args, params, ctx) => {
          const filename = argString(args, 'filename', 'the file');
          const got = await input.gather(
            {
              confirm: elicit(`Delete ${filename}?`, { confirm: { type: 'boolean' } }, ['confirm']),
            },
            params,
            ctx,
          );
          if ('outcome' in got) return got.outcome;
          const confirmed = contentOf(got.answers.confirm).confirm === true;
          return done(text(confirmed ? `Deleted ${filename}.` : `Kept ${filename}.`));
        },
        {
          type: 'object',
          properties: { filename: { type: 'string', description: 'The file to delete.' } },
        },
      ),
    }),
    withTasks('optional', {
      ...tool(
        'multi_input',
        'Asks two questions at once, then reports both answers.',
        async (_a, params, ctx) => {
          const got = await input.gather(
            {
              first: elicit('First name?', { name: { type: 'string' } }, ['name']),
              second: elicit('Second name?', { name: { type: 'string' } }, ['name']),
            },
            params,
            ctx,
          );
          if ('outcome' in got) return got.outcome;
          return done(
            text(
              `First: ${contentString(got.answers.first, 'name')}, second: ${contentString(got.answers.second, 'name')}.`,
            ),
          );
        },
      ),
    }),
    withTasks('required', {
      ...tool(
        'test_tool_with_task',
        'Asks for a name (MRTR), then greets it as a task.',
        async (_a, params, ctx) => {
          const got = await input.gather({ user_name: USER_NAME }, params, ctx);
          if ('outcome' in got) return got.outcome;
          return done(text(`Hello, ${contentString(got.answers.user_name, 'name')}!`));
        },
      ),
      // The rounds before the task: asked and answered synchronously; the task starts once the
      // name is in (its run reads the same answers).
      beforeTask: async (_args, params, ctx) => {
        const got = await input.gather({ user_name: USER_NAME }, params, ctx);
        return 'outcome' in got ? got.outcome : undefined;
      },
    }),
  ];
}

const USER_NAME = elicit('What is your name?', { name: { type: 'string' } }, ['name']);

function withTasks(support: 'optional' | 'required', t: ExtensionTool): ExtensionTool {
  return { ...t, taskSupport: support };
}

function secondsOf(value: unknown): number {
  if (value === undefined) return 1;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_SECONDS)
    throw new McpError(
      INVALID_PARAMS,
      `Invalid params: seconds must be a number from 0 to ${MAX_SECONDS}`,
    );
  return value;
}

function contentOf(answer: Record<string, unknown> | undefined): Record<string, unknown> {
  const content = answer?.content;
  return isJsonObject(content) ? content : {};
}

/** Waits `ms`, or rejects as soon as `signal` aborts (the task was cancelled). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error('cancelled'));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('cancelled'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
