import Fastify from 'fastify';
import { testPrincipal } from '@app/testing';
import { describe, expect, it } from 'vitest';
import { registerInProcessDispatch } from './in-process-dispatch.hook.js';
import {
  INTERNAL_DISPATCH_HEADER,
  InternalDispatchRegistry,
} from './internal-dispatch.registry.js';
import type { CallerContext } from './principal.js';

const caller = {
  channel: 'mcp',
  clientName: null,
  confirmationId: null,
  requestId: 'outer-1',
} as const;

function dispatch(requestId: string): { caller: CallerContext } {
  return {
    caller: {
      ...caller,
      requestId,
      principal: testPrincipal({ membership: null }),
    },
  };
}

/** A Fastify app with the hook, and a later hook and the route each reporting what they see. */
async function app(dispatches: InternalDispatchRegistry) {
  const fastify = Fastify();
  registerInProcessDispatch(fastify, dispatches);
  const seenByLaterHook: (string | null)[] = [];
  fastify.addHook('onRequest', (request, _reply, done) => {
    seenByLaterHook.push(dispatches.dispatchOf(request.raw)?.caller.requestId ?? null);
    done();
  });
  fastify.get('/r', (request) => ({
    requestId: dispatches.dispatchOf(request.raw)?.caller.requestId ?? null,
  }));
  await fastify.ready();
  return { fastify, seenByLaterHook };
}

describe('registerInProcessDispatch', () => {
  it('decides once per request; every later reader of that request sees the same answer', async () => {
    const dispatches = new InternalDispatchRegistry();
    const { fastify, seenByLaterHook } = await app(dispatches);
    const handle = dispatches.issue(dispatch('outer-1'));
    const res = await fastify.inject({
      method: 'GET',
      url: '/r',
      headers: { [INTERNAL_DISPATCH_HEADER]: handle },
    });
    expect(res.json()).toEqual({ requestId: 'outer-1' });
    expect(seenByLaterHook).toEqual(['outer-1']);
    await fastify.close();
  });

  it('a handle is used up by its request: replayed, it makes an outside request', async () => {
    const dispatches = new InternalDispatchRegistry();
    const { fastify } = await app(dispatches);
    const handle = dispatches.issue(dispatch('outer-2'));
    const headers = { [INTERNAL_DISPATCH_HEADER]: handle };
    await fastify.inject({ method: 'GET', url: '/r', headers });
    const replay = await fastify.inject({ method: 'GET', url: '/r', headers });
    expect(replay.json()).toEqual({ requestId: null });
    await fastify.close();
  });

  it('a header this process did not issue, or none, makes an outside request', async () => {
    const dispatches = new InternalDispatchRegistry();
    const { fastify, seenByLaterHook } = await app(dispatches);
    dispatches.issue(dispatch('outer-3'));
    for (const headers of [{ [INTERNAL_DISPATCH_HEADER]: 'mcp' }, {}]) {
      const res = await fastify.inject({ method: 'GET', url: '/r', headers });
      expect(res.json()).toEqual({ requestId: null });
    }
    expect(seenByLaterHook).toEqual([null, null]);
    await fastify.close();
  });

  it('a released handle no longer works', () => {
    const dispatches = new InternalDispatchRegistry();
    const handle = dispatches.issue(dispatch('outer-4'));
    dispatches.release(handle);
    expect(dispatches.dispatchOf({ headers: { [INTERNAL_DISPATCH_HEADER]: handle } })).toBe(
      undefined,
    );
  });
});
