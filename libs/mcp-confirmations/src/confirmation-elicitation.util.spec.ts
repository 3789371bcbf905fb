import { specTypeSchemas } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import {
  CONFIRMATION_INPUT_KEY,
  elicitationRequest,
  parseAnswer,
} from './confirmation-elicitation.util.js';

describe('elicitationRequest', () => {
  const message = 'Delete portal user Ana Souza <ana@example.com>? This cannot be undone.';
  const request = elicitationRequest(message);

  it("is an elicitation/create form request by the MCP SDK's own schema", () => {
    expect(specTypeSchemas.ElicitRequest['~standard'].validate(request).issues).toBeUndefined();
    const form = specTypeSchemas.ElicitRequestFormParams['~standard'].validate(request.params);
    expect(form.issues).toBeUndefined();
    expect(request.params.mode).toBe('form');
  });

  it('passes the message through and asks for one required boolean "confirm", false by default', () => {
    const { requestedSchema } = request.params;
    expect(request.params.message).toBe(message);
    expect(requestedSchema.required).toEqual(['confirm']);
    expect(Object.keys(requestedSchema.properties)).toEqual(['confirm']);
    expect(requestedSchema.properties.confirm).toMatchObject({ type: 'boolean', default: false });
  });

  it('carries no id or jsonrpc member (it goes inside inputRequests)', () => {
    expect(Object.keys(elicitationRequest('m'))).toEqual(['method', 'params']);
  });
});

describe('parseAnswer', () => {
  const key = CONFIRMATION_INPUT_KEY;
  const at = (entry: unknown): unknown => ({ [key]: entry });

  it.each([
    ['accept with confirm: true', at({ action: 'accept', content: { confirm: true } }), 'accept'],
    ['decline', at({ action: 'decline' }), 'decline'],
    ['cancel', at({ action: 'cancel' }), 'decline'],
    [
      'decline even with confirm: true',
      at({ action: 'decline', content: { confirm: true } }),
      'decline',
    ],
    [
      'accept with confirm: false',
      at({ action: 'accept', content: { confirm: false } }),
      'missing',
    ],
    ['accept without content', at({ action: 'accept' }), 'missing'],
    ['accept with confirm missing', at({ action: 'accept', content: {} }), 'missing'],
    [
      'accept with confirm "true" (a string)',
      at({ action: 'accept', content: { confirm: 'true' } }),
      'missing',
    ],
    ['accept with confirm 1', at({ action: 'accept', content: { confirm: 1 } }), 'missing'],
    ['accept with content an array', at({ action: 'accept', content: [true] }), 'missing'],
    ['an unknown action', at({ action: 'ACCEPT', content: { confirm: true } }), 'missing'],
    ['no action', at({ content: { confirm: true } }), 'missing'],
    ['the entry null', at(null), 'missing'],
    ['the entry a string', at('accept'), 'missing'],
    [
      'an answer under another key',
      { other: { action: 'accept', content: { confirm: true } } },
      'missing',
    ],
    ['inputResponses absent', undefined, 'missing'],
    ['inputResponses null', null, 'missing'],
    ['inputResponses an array', [{ action: 'accept', content: { confirm: true } }], 'missing'],
    ['inputResponses a string', 'accept', 'missing'],
  ])('%s → %s', (_label, responses, expected) => {
    expect(parseAnswer(responses, key)).toBe(expected);
  });

  it('uses CONFIRMATION_INPUT_KEY by default and honours another key', () => {
    const yes = { action: 'accept', content: { confirm: true } };
    expect(parseAnswer({ [CONFIRMATION_INPUT_KEY]: yes })).toBe('accept');
    expect(parseAnswer({ confirm: yes })).toBe('accept');
    expect(parseAnswer({ other: yes }, 'other')).toBe('accept');
    expect(parseAnswer({ other: yes })).toBe('missing');
  });

  it('ignores inherited properties (only the client’s own answer counts)', () => {
    const inherited: unknown = Object.create({
      [key]: { action: 'accept', content: { confirm: true } },
    });
    expect(parseAnswer(inherited, key)).toBe('missing');
    const content: unknown = Object.create({ confirm: true });
    expect(parseAnswer(at({ action: 'accept', content }), key)).toBe('missing');
  });
});
