import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MetricsService, TransportRejectionReason } from '@app/metrics';
import { isMcpRequest } from './mcp-request.js';

/** Why a layer refused an `/mcp` request, when its HTTP status alone does not say (403: Origin or Host). */
const NOTED = new WeakMap<FastifyRequest, TransportRejectionReason>();

/** Records why `request` is being refused, for the count made when its response is sent. */
export function noteTransportRejection(
  request: FastifyRequest,
  reason: TransportRejectionReason,
): void {
  NOTED.set(request, reason);
}

/** Methods the spec lets a client try on the endpoint (server stream, session end): 405 is the answer. */
const OPTIONAL_METHODS = new Set(['GET', 'DELETE']);

/**
 * The reason an `/mcp` response counts as a transport rejection, or `undefined` when it is not one
 * (a JSON-RPC answer, a 400 the endpoint counts itself, a 5xx). Decided by the status of the
 * response actually sent, whichever layer refused: the Origin/Host hook, the bearer guard, either
 * rate limiter (per IP or per token, whatever store backs it), the body limit or the controller.
 */
export function rejectionReasonOf(
  method: string,
  status: number,
  wwwAuthenticate: string | undefined,
  noted: TransportRejectionReason | undefined,
): TransportRejectionReason | undefined {
  switch (status) {
    case 401:
      // A DPoP proof refused counts with the tokens refused: the credential presented was not valid.
      return wwwAuthenticate !== undefined &&
        /error="invalid_(token|dpop_proof)"/.test(wwwAuthenticate)
        ? 'invalid_token'
        : 'unauthenticated';
    case 403:
      return noted ?? 'origin_not_allowed';
    case 405:
      return OPTIONAL_METHODS.has(method) ? 'optional_method' : 'method_not_allowed';
    case 406:
      return 'not_acceptable';
    case 413:
      return 'body_too_large';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'rate_limited';
    default:
      return undefined;
  }
}

/**
 * Counts `mcp_transport_rejections_total` at one choke point, the `/mcp` response: every refusal
 * before the JSON-RPC message is read counts exactly once, by the status it was answered with.
 */
export function registerMcpRejectionMetrics(
  fastify: FastifyInstance,
  metrics: Pick<MetricsService, 'recordTransportRejection'>,
): void {
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    if (isMcpRequest(request)) {
      const challenge = reply.getHeader('www-authenticate');
      const reason = rejectionReasonOf(
        request.method,
        reply.statusCode,
        typeof challenge === 'string' ? challenge : undefined,
        NOTED.get(request),
      );
      if (reason !== undefined) metrics.recordTransportRejection(reason);
    }
    done();
  });
}
