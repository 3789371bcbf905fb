// oxlint-disable typescript/no-unsafe-type-assertion -- a partial principal stands in for the real one
import { describe, expect, it } from 'vitest';
import type { Principal } from '@app/identity';
import { mcpErrorOf, testRequestContext } from '@app/testing';
import { RequestStateCodec } from '@app/mcp-confirmations';
import { ToolCatalog, type ExtensionTool, type McpCallExtra } from '@app/mcp-tools';
import {
  ClientRequestFailed,
  detachedChannel,
  type McpRequestChannel,
  type McpRequestContext,
} from '@app/mcp-transport';
import { ClientInput } from './client-input.js';
import { conformanceFixtures } from './fixtures.js';

const codec = new RequestStateCodec(['k'.repeat(40)]);
const extra = (tokenId = '7d3c3a52-4c0b-4b8e-9a55-1f0d6f1b2c3d'): McpCallExtra => ({
  principal: {
    tokenId,
    organizationId: '0b9f3f8e-4a4c-4f43-9e51-5f0c8d3b1a11',
    userId: '5a1e7c1e-9c1b-4f6f-8f1e-2b3c4d5e6f70',
  } as Principal,
  requestId: 'r',
  correlationId: null,
});

function ctx(
  era: 'legacy' | 'modern',
  clientCapabilities: Record<string, unknown> = {},
  channel: McpRequestChannel = detachedChannel(),
): McpRequestContext {
  return testRequestContext({ era, clientCapabilities, channel });
}

const fixtures = conformanceFixtures(codec);
const toolNamed = (name: string) => fixtures.tools!.find((t) => t.name === name)!;
const runner =
  (name: string) =>
  (...args: Parameters<ExtensionTool['run']>) =>
    toolNamed(name).run(...args);
const NAME = { action: 'accept', content: { name: 'Ana' } };

describe('conformance fixtures through our registries', () => {
  it('are listed after our own tools, and a name registered twice is refused', () => {
    const catalog = new ToolCatalog([fixtures]);
    const names = catalog.list('2026-07-28').map((t) => t.name);
    expect(names.indexOf('test_simple_text')).toBeGreaterThan(names.indexOf('list_audit_events'));
    expect(catalog.extension('test_simple_text')?.argumentNames.size).toBe(0);
    expect(catalog.extension('json_schema_2020_12_tool')?.argumentNames).toEqual(
      new Set(['name', 'address', 'contactMethod', 'phone', 'email']),
    );
    expect(() => new ToolCatalog([fixtures, fixtures])).toThrow(/registered twice/);
  });

  it('2026-07-28: asks with input_required, then answers from inputResponses', async () => {
    const run = runner('test_input_required_result_elicitation');
    const first = await run({}, {}, ctx('modern'), extra());
    expect(first).toMatchObject({
      kind: 'input_required',
      inputRequests: { user_name: { method: 'elicitation/create' } },
    });
    const retry = await run(
      {},
      { inputResponses: { user_name: NAME, extra: {} } },
      ctx('modern'),
      extra(),
    );
    expect(retry).toEqual({
      kind: 'complete',
      result: { content: [{ type: 'text', text: 'Hello, Ana!' }] },
    });
    const wrongKey = await run({}, { inputResponses: { other: NAME } }, ctx('modern'), extra());
    expect(wrongKey.kind).toBe('input_required');
    const malformed = await mcpErrorOf(
      run({}, { inputResponses: { user_name: 12345 } }, ctx('modern'), extra()),
    );
    expect(malformed.message).toMatch(/inputResponses.user_name must be an object/);
  });

  it('2025: asks through the request channel (the SSE stream) and reports a refusal as text', async () => {
    const asked: string[] = [];
    const channel: McpRequestChannel = {
      ...detachedChannel(),
      canStream: true,
      request: async (method) => {
        asked.push(method);
        if (method === 'sampling/createMessage') throw new ClientRequestFailed('no sampling');
        return NAME;
      },
    };
    const elicited = await toolNamed('test_elicitation').run(
      { message: 'Hi?' },
      {},
      ctx('legacy', {}, channel),
      extra(),
    );
    expect(elicited).toMatchObject({
      result: { content: [{ text: 'User response: action=accept, content={"name":"Ana"}' }] },
    });
    const sampled = await toolNamed('test_sampling').run(
      { prompt: 'x' },
      {},
      ctx('legacy', {}, channel),
      extra(),
    );
    expect(sampled).toMatchObject({
      result: { content: [{ text: 'LLM response: not supported or error: no sampling' }] },
    });
    expect(asked).toEqual(['elicitation/create', 'sampling/createMessage']);
  });

  it('requestState is signed and bound: tampered, another token’s or for other arguments → -32602', async () => {
    const run = runner('test_input_required_result_tampered_state');
    const first = await run({}, { arguments: {} }, ctx('modern'), extra());
    expect(first.kind).toBe('input_required');
    const state = first.kind === 'input_required' ? first.requestState! : '';
    const answer = { arguments: {}, inputResponses: { user_name: NAME } };
    await expect(
      run({}, { ...answer, requestState: state }, ctx('modern'), extra()),
    ).resolves.toMatchObject({
      kind: 'complete',
    });
    const flipped = `${state.slice(0, 5)}${state[5] === 'A' ? 'B' : 'A'}${state.slice(6)}`;
    for (const params of [
      { ...answer, requestState: flipped },
      { ...answer, arguments: { x: 1 }, requestState: state },
    ]) {
      const error = await mcpErrorOf(run({}, params, ctx('modern'), extra()));
      expect(error.message).toMatch(/integrity check/);
    }
    const stranger = await mcpErrorOf(
      run(
        {},
        { ...answer, requestState: state },
        ctx('modern'),
        extra('11111111-2222-4333-8444-555555555555'),
      ),
    );
    expect(stranger.message).toMatch(/integrity check/);
  });

  it('multi-round: the second round asks again with a new state; the third completes', async () => {
    const run = runner('test_input_required_result_multi_round');
    const r1 = await run({}, {}, ctx('modern'), extra());
    const s1 = r1.kind === 'input_required' ? r1.requestState : undefined;
    const r2 = await run(
      {},
      { inputResponses: { step1: NAME }, requestState: s1 },
      ctx('modern'),
      extra(),
    );
    expect(r2).toMatchObject({ kind: 'input_required', inputRequests: { step2: {} } });
    const s2 = r2.kind === 'input_required' ? r2.requestState : undefined;
    expect(s2).not.toBe(s1);
    const r3 = await run(
      {},
      {
        inputResponses: { step2: { action: 'accept', content: { color: 'blue' } } },
        requestState: s2,
      },
      ctx('modern'),
      extra(),
    );
    expect(r3).toMatchObject({
      kind: 'complete',
      result: { content: [{ text: expect.stringMatching(/color=blue/) }] },
    });
  });

  it('asks only for what the request declared (capability check)', async () => {
    const outcome = await toolNamed('test_input_required_result_capabilities').run(
      {},
      {},
      ctx('modern', { sampling: {} }),
      extra(),
    );
    expect(
      outcome.kind === 'input_required' ? Object.keys(outcome.inputRequests ?? {}) : [],
    ).toEqual(['greeting']);
  });

  it('ClientInput never gathers from a 2026 channel request (MRTR only)', async () => {
    const input = new ClientInput(codec);
    const channel: McpRequestChannel = {
      ...detachedChannel(),
      request: () => Promise.reject(new Error('must not be called')),
    };
    const got = await input.gather(
      { r: { method: 'roots/list', params: {} } },
      {},
      ctx('modern', {}, channel),
    );
    expect('outcome' in got && got.outcome.kind).toBe('input_required');
  });
});
