import { isJsonObject } from '@app/common';
import type { RequestStateCodec } from '@app/mcp-confirmations';
import type {
  ExtensionPrompt,
  ExtensionResource,
  ExtensionTool,
  McpCallExtra,
  McpExtension,
} from '@app/mcp-tools';
import type { McpHandlerOutcome, McpRequestContext } from '@app/mcp-transport';
import { ClientInput, type InputRequest } from './client-input.js';

/** A 1×1 red PNG. */
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A minimal WAV header with two bytes of silence. */
const WAV_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
/** Between progress or log messages: long enough for a client to see them arrive one by one. */
const STEP_MS = 50;
const META_FIELD = '_meta';

const ANY_MEMBER = {};
const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false };

const text = (value: string) => ({ type: 'text', text: value });
const done = (...content: Record<string, unknown>[]): McpHandlerOutcome => ({
  kind: 'complete',
  result: { content },
});
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Run = ExtensionTool['run'];

function tool(
  name: string,
  description: string,
  run: Run,
  inputSchema: Record<string, unknown> = NO_ARGUMENTS,
): ExtensionTool {
  return {
    name,
    title: name,
    description,
    inputSchema,
    annotations: { title: name, ...READ_ONLY },
    access: ANY_MEMBER,
    run,
  };
}

const elicit = (message: string, properties: Record<string, unknown>, required: string[]) => ({
  method: 'elicitation/create' as const,
  params: { message, requestedSchema: { type: 'object', properties, required } },
});
const sample = (prompt: string, maxTokens: number) => ({
  method: 'sampling/createMessage' as const,
  params: { messages: [{ role: 'user', content: text(prompt) }], maxTokens },
});
const ROOTS: InputRequest = { method: 'roots/list', params: {} };

/** What a client answered, as the fixtures echo it. */
function describeAnswer(answer: Record<string, unknown>): string {
  if (typeof answer.error === 'string') return `not supported or error: ${answer.error}`;
  if (typeof answer.action === 'string')
    return `action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  if (isJsonObject(answer.content) && typeof answer.content.text === 'string')
    return answer.content.text;
  if (Array.isArray(answer.roots))
    return answer.roots
      .map((r) => (isJsonObject(r) && typeof r.uri === 'string' ? r.uri : '?'))
      .join(', ');
  return JSON.stringify(answer);
}

function contentString(answer: Record<string, unknown> | undefined, field: string): string {
  const content = answer?.content;
  return isJsonObject(content) && typeof content[field] === 'string' ? content[field] : '(none)';
}

function argString(args: Record<string, unknown>, name: string, fallback: string): string {
  const value = args[name];
  return typeof value === 'string' ? value : fallback;
}

/** A tool that asks the client something once and reports the answer. */
function askingTool(
  input: ClientInput,
  name: string,
  description: string,
  requests: (args: Record<string, unknown>) => Record<string, InputRequest>,
  report: (answers: Record<string, Record<string, unknown>>) => string,
  inputSchema?: Record<string, unknown>,
): ExtensionTool {
  return tool(
    name,
    description,
    async (args, params, ctx) => {
      const got = await input.gather(requests(args), params, ctx);
      return 'outcome' in got ? got.outcome : done(text(report(got.answers)));
    },
    inputSchema,
  );
}

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

function tools(input: ClientInput): ExtensionTool[] {
  const stateful = (
    name: string,
    description: string,
    run: (
      params: Record<string, unknown>,
      ctx: McpRequestContext,
      extra: McpCallExtra,
    ) => Promise<McpHandlerOutcome>,
  ) => tool(name, description, (_args, params, ctx, extra) => run(params, ctx, extra));

  return [
    tool('test_simple_text', 'Answers one text block.', async () =>
      done(text('This is a simple text response for testing.')),
    ),
    tool('test_image_content', 'Answers one PNG image block.', async () =>
      done({ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }),
    ),
    tool('test_audio_content', 'Answers one WAV audio block.', async () =>
      done({ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }),
    ),
    tool('test_embedded_resource', 'Answers one embedded text resource.', async () =>
      done({
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      }),
    ),
    tool('test_multiple_content_types', 'Answers text, an image and a resource.', async () =>
      done(
        text('Multiple content types test:'),
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ),
    ),
    tool('test_error_handling', 'Always fails with an isError result.', async () => ({
      kind: 'complete',
      result: {
        content: [text('This tool intentionally returns an error for testing')],
        isError: true,
      },
    })),
    tool(
      'test_tool_with_progress',
      'Reports progress 0, 50 and 100 of 100 when the call has a progressToken.',
      async (_args, params, ctx) => {
        for (const progress of [0, 50, 100]) {
          ctx.channel.progress(progress, 100, `Completed step ${progress} of 100`);
          if (progress < 100) await pause(STEP_MS);
        }
        const meta = params[META_FIELD];
        const token = isJsonObject(meta) ? meta.progressToken : undefined;
        const shown =
          typeof token === 'string' || typeof token === 'number' ? String(token) : 'no token';
        return done(text(shown));
      },
    ),
    tool(
      'test_tool_with_logging',
      'Sends three info log messages while it runs.',
      async (_args, _params, ctx) => {
        for (const message of ['Tool execution started', 'Tool processing data']) {
          ctx.channel.log('info', message, 'conformance-fixtures');
          await pause(STEP_MS);
        }
        ctx.channel.log('info', 'Tool execution completed', 'conformance-fixtures');
        return done(text('Tool with logging executed successfully'));
      },
    ),
    tool(
      'test_logging_tool',
      'Logs at every level; only what the request’s log level admits is sent.',
      async (_args, _params, ctx) => {
        ctx.channel.log('debug', 'debug message', 'conformance-fixtures');
        ctx.channel.log('info', 'info message', 'conformance-fixtures');
        ctx.channel.log('error', 'error message', 'conformance-fixtures');
        return done(text('Logging tool executed'));
      },
    ),
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
    tool(
      'test_custom_header',
      'Echoes a region the client also sends as the Mcp-Param-Region header (x-mcp-header).',
      async (args) => done(text(`Region: ${argString(args, 'region', '(none)')}`)),
      {
        type: 'object',
        properties: {
          region: {
            type: 'string',
            description: 'A region name; clients mirror it into Mcp-Param-Region.',
            'x-mcp-header': 'Region',
          },
        },
        additionalProperties: false,
      },
    ),
    tool(
      'json_schema_2020_12_tool',
      'Takes a name, an address and a way to be contacted (JSON Schema 2020-12: $defs, $anchor, $ref, allOf/anyOf, if/then/else) and echoes them.',
      async (args) => done(text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`)),
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: {
            $anchor: 'addressDef',
            type: 'object',
            properties: { street: { type: 'string' }, city: { type: 'string' } },
          },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        // oxlint-disable-next-line unicorn/no-thenable -- JSON Schema's `then` keyword, not a promise
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
    ),
  ];
}

const prompt = (
  name: string,
  description: string,
  args: ExtensionPrompt['arguments'],
  get: ExtensionPrompt['get'],
  complete?: ExtensionPrompt['complete'],
): ExtensionPrompt => ({
  name,
  title: name,
  description,
  arguments: args,
  access: ANY_MEMBER,
  get,
  ...(complete === undefined ? {} : { complete }),
});
const messages = (...content: Record<string, unknown>[]): McpHandlerOutcome => ({
  kind: 'complete',
  result: { messages: content.map((c) => ({ role: 'user', content: c })) },
});

function prompts(input: ClientInput): ExtensionPrompt[] {
  return [
    prompt('test_simple_prompt', 'A prompt without arguments.', [], async () =>
      messages(text('This is a simple prompt for testing.')),
    ),
    prompt(
      'test_prompt_with_arguments',
      'A prompt with two required arguments.',
      [
        { name: 'arg1', description: 'First test argument.', required: true },
        { name: 'arg2', description: 'Second test argument.', required: true },
      ],
      async (args) =>
        messages(text(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`)),
      (argument, value) =>
        ['testValue1', 'testValue2', `${argument}-example`].filter((v) => v.startsWith(value)),
    ),
    prompt(
      'test_prompt_with_embedded_resource',
      'A prompt that embeds a resource.',
      [{ name: 'resourceUri', description: 'URI of the resource to embed.', required: true }],
      async (args) =>
        messages(
          {
            type: 'resource',
            resource: {
              uri: args.resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
          text('Please process the embedded resource above.'),
        ),
    ),
    prompt('test_prompt_with_image', 'A prompt with an image.', [], async () =>
      messages(
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        text('Please analyze the image above.'),
      ),
    ),
    prompt(
      'test_input_required_result_prompt',
      'A prompt that first asks the person for context.',
      [],
      async (_args, params, ctx) => {
        const got = await input.gather(
          {
            user_context: elicit(
              'What context should the prompt use?',
              { context: { type: 'string' } },
              ['context'],
            ),
          },
          params,
          ctx,
        );
        if ('outcome' in got) return got.outcome;
        return messages(
          text(`Use this context: ${contentString(got.answers.user_context, 'context')}`),
        );
      },
    ),
  ];
}

const resource = (
  r: Omit<ExtensionResource, 'access' | 'title'> & { title?: string },
): ExtensionResource => ({ title: r.name, access: ANY_MEMBER, ...r });

function resources(): ExtensionResource[] {
  return [
    resource({
      uri: 'test://static-text',
      name: 'static-text',
      description: 'A static text resource.',
      mimeType: 'text/plain',
      read: async (uri) => [
        { uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
      ],
    }),
    resource({
      uri: 'test://static-binary',
      name: 'static-binary',
      description: 'A static binary resource (a PNG image).',
      mimeType: 'image/png',
      read: async (uri) => [{ uri, mimeType: 'image/png', blob: PNG_BASE64 }],
    }),
    resource({
      uri: 'test://watched-resource',
      name: 'watched-resource',
      description: 'A text resource (this stateless server offers no subscriptions to it).',
      mimeType: 'text/plain',
      read: async (uri) => [{ uri, mimeType: 'text/plain', text: 'Watched resource content' }],
    }),
    resource({
      uriTemplate: 'test://template/{id}/data',
      name: 'template',
      description: 'A resource template with parameter substitution.',
      mimeType: 'application/json',
      read: async (uri, vars) => [
        {
          uri,
          mimeType: 'application/json',
          text: JSON.stringify({
            id: vars.id,
            templateTest: true,
            data: `Data for ID: ${vars.id}`,
          }),
        },
      ],
    }),
  ];
}

/**
 * The MCP conformance suite's fixtures (the tools, prompts and resources its scenarios drive by
 * name), as an extension of our own registries: testing only (MCP_CONFORMANCE_FIXTURES).
 */
export function conformanceFixtures(codec: RequestStateCodec): McpExtension {
  const input = new ClientInput(codec);
  return { tools: tools(input), prompts: prompts(input), resources: resources() };
}
