import type { ExtensionPrompt } from '@app/mcp-tools';
import type { McpHandlerOutcome } from '@app/mcp-transport';
import type { ClientInput } from './client-input.js';
import { ANY_MEMBER, contentString, elicit, PNG_BASE64, text } from './fixture-kit.js';

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

/** The fixture prompts: plain, with arguments and completion, embedded content, one that asks. */
export function prompts(input: ClientInput): ExtensionPrompt[] {
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
