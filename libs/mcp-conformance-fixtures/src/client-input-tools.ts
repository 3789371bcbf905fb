import type { ExtensionTool, McpCallExtra } from '@app/mcp-tools';
import type { McpHandlerOutcome, McpRequestContext } from '@app/mcp-transport';
import type { ClientInput, InputRequest } from './client-input.js';
import {
  argString,
  askingTool,
  contentString,
  describeAnswer,
  done,
  elicit,
  ROOTS,
  sample,
  text,
  tool,
} from './fixture-kit.js';

const SEP1034_SCHEMA = {
  name: { type: 'string', description: 'User name', default: 'John Doe' },
  age: { type: 'integer', description: 'User age', default: 30 },
  score: { type: 'number', description: 'User score', default: 95.5 },
  status: {
    type: 'string',
    description: 'User status',
    enum: ['active', 'inactive', 'pending'],
    default: 'active',
  },
  verified: { type: 'boolean', description: 'Verification status', default: true },
};

const SEP1330_SCHEMA = {
  untitledSingle: {
    type: 'string',
    description: 'Select one option',
    enum: ['option1', 'option2', 'option3'],
  },
  titledSingle: {
    type: 'string',
    description: 'Select one option with titles',
    oneOf: [
      { const: 'value1', title: 'First Option' },
      { const: 'value2', title: 'Second Option' },
      { const: 'value3', title: 'Third Option' },
    ],
  },
  legacyEnum: {
    type: 'string',
    description: 'Select one option (legacy)',
    enum: ['opt1', 'opt2', 'opt3'],
    enumNames: ['Option One', 'Option Two', 'Option Three'],
  },
  untitledMulti: {
    type: 'array',
    description: 'Select multiple options',
    minItems: 1,
    maxItems: 3,
    items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
  },
  titledMulti: {
    type: 'array',
    description: 'Select multiple options with titles',
    minItems: 1,
    maxItems: 3,
    items: {
      anyOf: [
        { const: 'value1', title: 'First Choice' },
        { const: 'value2', title: 'Second Choice' },
        { const: 'value3', title: 'Third Choice' },
      ],
    },
  },
};

const USER_NAME = elicit('What is your name?', { name: { type: 'string' } }, ['name']);

/** A fixture that reads the raw request (the retry's inputResponses and requestState), not arguments. */
const stateful = (
  name: string,
  description: string,
  run: (
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    extra: McpCallExtra,
  ) => Promise<McpHandlerOutcome>,
) => tool(name, description, (_args, params, ctx, extra) => run(params, ctx, extra));

/**
 * The fixtures that ask the client (elicitation, sampling, roots), in the 2025 era by request and
 * in the 2026-07-28 era by an input-required result and a signed requestState.
 */
export function clientInputTools(input: ClientInput): ExtensionTool[] {
  return [
    askingTool(
      input,
      'test_sampling',
      'Asks the client’s model to complete the prompt.',
      (args) => ({ completion: sample(argString(args, 'prompt', 'Say hello'), 100) }),
      (answers) => `LLM response: ${describeAnswer(answers.completion)}`,
      {
        type: 'object',
        properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM.' } },
        required: ['prompt'],
      },
    ),
    askingTool(
      input,
      'test_elicitation',
      'Asks the person for a response.',
      (args) => ({
        response: elicit(
          argString(args, 'message', 'Please respond'),
          { response: { type: 'string', description: 'User response' } },
          ['response'],
        ),
      }),
      (answers) => `User response: ${describeAnswer(answers.response)}`,
      {
        type: 'object',
        properties: {
          message: { type: 'string', description: 'The message to show the user.' },
        },
        required: ['message'],
      },
    ),
    askingTool(
      input,
      'test_elicitation_sep1034_defaults',
      'Asks for a form whose fields all have defaults (SEP-1034).',
      () => ({
        form: elicit('Please review and update the form fields with defaults', SEP1034_SCHEMA, []),
      }),
      (answers) => `Elicitation completed: ${describeAnswer(answers.form)}`,
    ),
    askingTool(
      input,
      'test_elicitation_sep1330_enums',
      'Asks for a form with every enum variant (SEP-1330).',
      () => ({ form: elicit('Please select options from the enum fields', SEP1330_SCHEMA, []) }),
      (answers) => `Elicitation completed: ${describeAnswer(answers.form)}`,
    ),
    askingTool(
      input,
      'test_missing_capability',
      'Needs sampling: a client that did not declare it gets -32021.',
      () => ({ completion: sample('Say hello', 20) }),
      (answers) => `LLM response: ${describeAnswer(answers.completion)}`,
    ),
    askingTool(
      input,
      'test_streaming_elicitation',
      'Asks the person for their name (as input_required in 2026-07-28, never as a request on the stream).',
      () => ({ user_name: USER_NAME }),
      (answers) => `Hello, ${contentString(answers.user_name, 'name')}!`,
    ),
    askingTool(
      input,
      'test_input_required_result_elicitation',
      'Asks the person for their name.',
      () => ({ user_name: USER_NAME }),
      (answers) => `Hello, ${contentString(answers.user_name, 'name')}!`,
    ),
    askingTool(
      input,
      'test_input_required_result_sampling',
      'Asks the client’s model for the capital of France.',
      () => ({ capital_question: sample('What is the capital of France?', 100) }),
      (answers) => `The model said: ${describeAnswer(answers.capital_question)}`,
    ),
    askingTool(
      input,
      'test_input_required_result_list_roots',
      'Asks the client for its roots.',
      () => ({ client_roots: ROOTS }),
      (answers) => `Client roots: ${describeAnswer(answers.client_roots)}`,
    ),
    stateful(
      'test_input_required_result_request_state',
      'Asks for a confirmation and checks the signed requestState on the retry.',
      async (params, ctx, extra) => {
        const step = input.stepOf(params, extra);
        const requests = {
          confirm: elicit('Please confirm', { ok: { type: 'boolean' } }, ['ok']),
        };
        const got = await input.gather(requests, params, ctx, { name: 'request_state', extra });
        if ('outcome' in got) return got.outcome;
        if (ctx.era === 'modern' && step !== 'request_state') {
          return {
            kind: 'input_required',
            inputRequests: requests,
            requestState: input.stateFor('request_state', params, extra),
          };
        }
        return done(text(`state-ok: confirmed ${describeAnswer(got.answers.confirm)}`));
      },
    ),
    stateful(
      'test_input_required_result_multiple_inputs',
      'Asks for a name, a model greeting and the client’s roots at once.',
      async (params, ctx, extra) => {
        input.stepOf(params, extra);
        const got = await input.gather(
          {
            user_name: USER_NAME,
            greeting: sample('Generate a greeting', 50),
            client_roots: ROOTS,
          },
          params,
          ctx,
          { name: 'multiple_inputs', extra },
        );
        if ('outcome' in got) return got.outcome;
        const { user_name: name, greeting, client_roots: roots } = got.answers;
        return done(
          text(
            `name=${contentString(name, 'name')}; greeting=${describeAnswer(greeting)}; roots=${describeAnswer(roots)}`,
          ),
        );
      },
    ),
    stateful(
      'test_input_required_result_multi_round',
      'Asks for a name, then (a second round) a favourite colour.',
      async (params, ctx, extra) => {
        const step = input.stepOf(params, extra);
        const step1 = {
          step1: elicit('Step 1: What is your name?', { name: { type: 'string' } }, ['name']),
        };
        const step2 = {
          step2: elicit('Step 2: What is your favorite color?', { color: { type: 'string' } }, [
            'color',
          ]),
        };
        if (ctx.era === 'legacy') {
          const first = await input.gather(step1, params, ctx);
          const second = await input.gather(step2, params, ctx);
          if ('outcome' in first) return first.outcome;
          if ('outcome' in second) return second.outcome;
          return done(
            text(
              `name=${contentString(first.answers.step1, 'name')}, color=${contentString(second.answers.step2, 'color')}`,
            ),
          );
        }
        if (step !== 'multi_round_2') {
          const got = await input.gather(step1, params, ctx, { name: 'multi_round_1', extra });
          if ('outcome' in got) return got.outcome;
          return {
            kind: 'input_required',
            inputRequests: step2,
            requestState: input.stateFor('multi_round_2', params, extra),
          };
        }
        const got = await input.gather(step2, params, ctx, { name: 'multi_round_2', extra });
        if ('outcome' in got) return got.outcome;
        return done(text(`Both rounds done: color=${contentString(got.answers.step2, 'color')}`));
      },
    ),
    stateful(
      'test_input_required_result_tampered_state',
      'Issues a signed requestState; a tampered one on the retry is a -32602 error.',
      async (params, ctx, extra) => {
        const step = input.stepOf(params, extra);
        const got = await input.gather({ user_name: USER_NAME }, params, ctx, {
          name: 'tampered_state',
          extra,
        });
        if ('outcome' in got) return got.outcome;
        if (ctx.era === 'modern' && step !== 'tampered_state') {
          return {
            kind: 'input_required',
            inputRequests: { user_name: USER_NAME },
            requestState: input.stateFor('tampered_state', params, extra),
          };
        }
        return done(
          text(`Hello, ${contentString(got.answers.user_name, 'name')}! (state verified)`),
        );
      },
    ),
    tool(
      'test_input_required_result_capabilities',
      'Asks only for what the request’s client capabilities allow.',
      async (_args, params, ctx) => {
        const caps = ctx.clientCapabilities;
        const requests: Record<string, InputRequest> = {};
        if (ctx.era === 'legacy' || caps.elicitation !== undefined) requests.user_name = USER_NAME;
        if (ctx.era === 'legacy' || caps.sampling !== undefined)
          requests.greeting = sample('Generate a greeting', 50);
        if (ctx.era === 'legacy' || caps.roots !== undefined) requests.client_roots = ROOTS;
        if (Object.keys(requests).length === 0)
          return done(text('The client declared no capability to ask with; nothing was asked.'));
        const got = await input.gather(requests, params, ctx);
        if ('outcome' in got) return got.outcome;
        return done(text(`Answered: ${Object.keys(got.answers).join(', ')}`));
      },
    ),
  ];
}
