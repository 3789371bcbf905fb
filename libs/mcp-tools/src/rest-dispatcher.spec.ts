// oxlint-disable typescript/no-unsafe-type-assertion -- a test double stands in for Nest's HttpAdapterHost
import type { HttpAdapterHost } from '@nestjs/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessRequirement } from '@app/access-vocabulary';
import {
  INTERNAL_DISPATCH_HEADER,
  InternalDispatchRegistry,
  type CallerContext,
} from '@app/identity';
import { testPrincipal } from '@app/testing';
import { RestDispatcher } from './rest-dispatcher.js';

const caller: CallerContext = {
  principal: testPrincipal(),
  channel: 'mcp',
  clientName: 'client',
  confirmationId: null,
  requestId: 'outer-1',
};
const verified: AccessRequirement = {
  scope: { resource: 'accounts', access: 'read' },
  permission: 'accounts.read',
};

describe('RestDispatcher', () => {
  const registry = new InternalDispatchRegistry();
  let fastify: FastifyInstance;
  let dispatcher: RestDispatcher;
  const seen: Array<{ handle: unknown; dispatch: unknown; request: Record<string, unknown> }> = [];

  beforeAll(async () => {
    fastify = Fastify();
    fastify.all('/echo', (request, reply) => {
      seen.push({
        handle: request.headers[INTERNAL_DISPATCH_HEADER],
        dispatch: registry.dispatchOf(request.raw),
        request: {
          method: request.method,
          query: request.query,
          body: request.body,
          requestId: request.headers['x-request-id'],
          contentType: request.headers['content-type'],
        },
      });
      return reply.send({ ok: true });
    });
    fastify.delete('/empty', (_request, reply) => reply.code(204).send());
    fastify.get('/refused', (_request, reply) =>
      reply.code(404).send({ error: { code: 'NOT_FOUND', message: 'Account not found' } }),
    );
    await fastify.ready();
    const host = { httpAdapter: { getInstance: () => fastify } } as unknown as HttpAdapterHost;
    dispatcher = new RestDispatcher(host, registry);
  });

  afterAll(() => fastify.close());

  it('runs the route in-process as the caller, with the requirement already verified', async () => {
    seen.length = 0;
    const res = await dispatcher.dispatch(caller, 'GET', '/echo', { verified });
    expect(res).toEqual({ status: 200, body: { ok: true }, text: '{"ok":true}' });
    expect(seen[0]?.dispatch).toEqual({ caller, verified });
    expect(seen[0]?.request).toMatchObject({ method: 'GET', requestId: 'outer-1' });
  });

  it('its handle is single use and gone afterwards: replaying it is an outside request', async () => {
    seen.length = 0;
    await dispatcher.dispatch(caller, 'GET', '/echo');
    const handle = seen[0]?.handle;
    expect(typeof handle).toBe('string');
    const replay = await fastify.inject({
      method: 'GET',
      url: '/echo',
      headers: { [INTERNAL_DISPATCH_HEADER]: String(handle) },
    });
    expect(replay.statusCode).toBe(200);
    expect(seen[1]?.dispatch).toBeUndefined();
  });

  it('tool arguments become the query (arrays repeat, null and undefined are left out) or a JSON body', async () => {
    seen.length = 0;
    await dispatcher.dispatch(caller, 'GET', '/echo', {
      query: { q: 'ana', limit: 5, active: true, ids: ['a', 'b'], none: null, gone: undefined },
    });
    expect(seen[0]?.request.query).toEqual({
      q: 'ana',
      limit: '5',
      active: 'true',
      ids: ['a', 'b'],
    });
    await dispatcher.dispatch(caller, 'POST', '/echo', { body: { name: 'Initech' } });
    expect(seen[1]?.request).toMatchObject({
      method: 'POST',
      body: { name: 'Initech' },
      contentType: 'application/json',
    });
  });

  it('answers an empty body as undefined and an error envelope as it came', async () => {
    expect(await dispatcher.dispatch(caller, 'DELETE', '/empty')).toEqual({
      status: 204,
      body: undefined,
    });
    expect(await dispatcher.dispatch(caller, 'GET', '/refused')).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND' } },
    });
  });
});
