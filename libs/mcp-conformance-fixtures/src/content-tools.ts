import { isJsonObject } from '@app/common';
import type { ExtensionTool } from '@app/mcp-tools';
import {
  argString,
  done,
  META_FIELD,
  pause,
  PNG_BASE64,
  STEP_MS,
  text,
  tool,
  WAV_BASE64,
} from './fixture-kit.js';

/**
 * The fixtures that answer without asking the client anything: content of every type, an error
 * result, progress and log notifications, a header-mirrored argument, a JSON Schema 2020-12 input.
 */
export function contentTools(): ExtensionTool[] {
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
