import { describe, expect, it } from 'vitest';
import { checkInputRequests } from './client-capability.gate.js';

const form = { method: 'elicitation/create', params: { message: 'ok?', requestedSchema: {} } };
const url = {
  method: 'elicitation/create',
  params: { mode: 'url', message: 'go', url: 'https://x' },
};
const sampling = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } };
const samplingWithTools = {
  method: 'sampling/createMessage',
  params: { messages: [], maxTokens: 5, tools: [] },
};
const roots = { method: 'roots/list' };

describe('checkInputRequests', () => {
  it('accepts requests the client declared', () => {
    expect(checkInputRequests({ a: form }, { elicitation: {} }).kind).toBe('ok');
    expect(checkInputRequests({ a: form }, { elicitation: { form: {} } }).kind).toBe('ok');
    expect(checkInputRequests({ a: url }, { elicitation: { url: {} } }).kind).toBe('ok');
    expect(checkInputRequests({ a: sampling }, { sampling: {} }).kind).toBe('ok');
    expect(checkInputRequests({ a: samplingWithTools }, { sampling: { tools: {} } }).kind).toBe(
      'ok',
    );
    expect(checkInputRequests({ a: roots }, { roots: {} }).kind).toBe('ok');
  });

  it('names an undeclared capability as a ClientCapabilities object', () => {
    expect(checkInputRequests({ a: form }, {})).toEqual({
      kind: 'missing',
      requiredCapabilities: { elicitation: { form: {} } },
    });
    expect(checkInputRequests({ a: sampling }, { elicitation: {} })).toEqual({
      kind: 'missing',
      requiredCapabilities: { sampling: {} },
    });
    expect(checkInputRequests({ a: roots }, {})).toEqual({
      kind: 'missing',
      requiredCapabilities: { roots: {} },
    });
  });

  it('gates elicitation modes separately', () => {
    // `elicitation: {}` is form only.
    expect(checkInputRequests({ a: url }, { elicitation: {} })).toEqual({
      kind: 'missing',
      requiredCapabilities: { elicitation: { url: {} } },
    });
    // URL-only client cannot answer a form.
    expect(checkInputRequests({ a: form }, { elicitation: { url: {} } })).toEqual({
      kind: 'missing',
      requiredCapabilities: { elicitation: { form: {} } },
    });
  });

  it('needs sampling.tools for tool-enabled sampling', () => {
    expect(checkInputRequests({ a: samplingWithTools }, { sampling: {} })).toEqual({
      kind: 'missing',
      requiredCapabilities: { sampling: { tools: {} } },
    });
  });

  it('merges everything missing across input requests', () => {
    expect(checkInputRequests({ a: form, b: url, c: roots }, {})).toEqual({
      kind: 'missing',
      requiredCapabilities: { elicitation: { form: {}, url: {} }, roots: {} },
    });
  });

  it('does not treat a non-object capability value as declared', () => {
    expect(checkInputRequests({ a: form }, { elicitation: true }).kind).toBe('missing');
  });

  it('reports malformed input requests', () => {
    expect(checkInputRequests({ a: { method: 'tools/call' } }, {}).kind).toBe('invalid');
    expect(checkInputRequests({ a: 'x' }, {}).kind).toBe('invalid');
    expect(checkInputRequests({ a: { method: 'roots/list', params: 3 } }, {}).kind).toBe('invalid');
    expect(
      checkInputRequests(
        { a: { method: 'elicitation/create', params: { mode: 'telepathy' } } },
        { elicitation: {} },
      ).kind,
    ).toBe('invalid');
  });
});
