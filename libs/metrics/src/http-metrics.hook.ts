import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MCP_PATH } from '@app/config';
import type { MetricsService } from './metrics.service.js';

/** Route label for requests that matched no route (404s from the not-found handler). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Whether a matched route pattern is measured as REST. `/mcp` has its own MCP metrics; `/metrics`
 * and `/health/*` are probes and scrapes, which would only add noise.
 */
export function isRestRoute(pattern: string): boolean {
  return !(
    pattern === MCP_PATH ||
    pattern.startsWith(`${MCP_PATH}/`) ||
    pattern === '/metrics' ||
    pattern === '/health' ||
    pattern.startsWith('/health/')
  );
}

/**
 * The `route` label of a request: `"METHOD /pattern"` from the matched route (bounded by the routes
 * the app declares), never the raw URL; `undefined` when the route is not measured here.
 */
export function httpRouteLabel(request: FastifyRequest): string | undefined {
  const pattern = request.routeOptions.url;
  if (pattern === undefined || pattern === '') return UNMATCHED_ROUTE;
  if (!isRestRoute(pattern)) return undefined;
  return `${request.method} ${pattern}`;
}

/**
 * Adds an `onResponse` hook recording `http_requests_total` and `http_request_duration_seconds`
 * for every REST response. Call it on the Fastify instance before the app starts listening
 * (`registerHttpMetrics(app.getHttpAdapter().getInstance(), app.get(MetricsService))`).
 */
export function registerHttpMetrics(fastify: FastifyInstance, metrics: MetricsService): void {
  fastify.addHook(
    'onResponse',
    (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
      const route = httpRouteLabel(request);
      if (route !== undefined) {
        metrics.recordHttpRequest(route, reply.statusCode, reply.elapsedTime / 1000);
      }
      done();
    },
  );
}
