import type { FastifyInstance } from 'fastify';
import type { InternalDispatchRegistry } from './internal-dispatch.registry.js';

/**
 * Decides, before anything else reads the request, whether it is an in-process dispatch (see
 * {@link InternalDispatchRegistry.dispatchOf}). Register it before every other onRequest hook.
 */
export function registerInProcessDispatch(
  fastify: FastifyInstance,
  dispatches: InternalDispatchRegistry,
): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    dispatches.dispatchOf(request.raw);
    done();
  });
}
