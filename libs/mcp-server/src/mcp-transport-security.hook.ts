import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '@app/config';
import { httpStatusOf, toEnvelope, type ErrorCode } from '@app/errors';
import type { TransportRejectionReason } from '@app/metrics';
import { noteTransportRejection } from './mcp-rejection.metrics.js';

const MCP_PATH = '/mcp';
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export type TransportVerdict =
  | { allowed: true }
  | {
      allowed: false;
      code: Extract<ErrorCode, 'ORIGIN_NOT_ALLOWED' | 'HOST_NOT_ALLOWED'>;
      reason: TransportRejectionReason;
      message: string;
    };

export interface TransportSecurityPolicy {
  /** Normalised origins (`scheme://host[:port]`, lower case) allowed to call from a browser. */
  allowedOrigins: ReadonlySet<string>;
  /** The server listens on loopback only: validate Host (DNS rebinding) on every route. */
  loopbackBound: boolean;
}

/**
 * Decisions (DNS-rebinding defence: the MCP transports spec's security warning and the conformance
 * suite's `dns-rebinding-protection` scenario):
 * - `Origin` absent: allowed (non-browser clients send none).
 * - `Origin` present (on `/mcp`): allowed only when listed in MCP_ALLOWED_ORIGINS. An empty list
 *   allows no browser origin, a loopback one included: any page the browser loaded, from any
 *   port of this machine, is a page this server did not vouch for. `Origin: null` (sandboxed
 *   frames, file://) is never allowed.
 * - Loopback-bound: `Host` must be a loopback name or address (any port), on every route (REST,
 *   OAuth pages and `/mcp` alike); anything else (a rebinding name such as evil.example.com) is
 *   refused. Bound elsewhere (0.0.0.0 behind an ingress), Host is the ingress's business.
 */
export function evaluateTransport(
  policy: TransportSecurityPolicy,
  origin: string | undefined,
  host: string | undefined,
): TransportVerdict {
  if (policy.loopbackBound && !isLoopbackHost(host)) {
    return {
      allowed: false,
      code: 'HOST_NOT_ALLOWED',
      reason: 'host_not_allowed',
      message:
        'This server listens on loopback only; the Host header must name localhost, 127.0.0.1 or [::1]',
    };
  }
  if (origin === undefined) return { allowed: true };
  const normalised = normaliseOrigin(origin);
  if (normalised !== undefined && policy.allowedOrigins.has(normalised)) return { allowed: true };
  return {
    allowed: false,
    code: 'ORIGIN_NOT_ALLOWED',
    reason: 'origin_not_allowed',
    message: 'Browser origin not allowed to call this MCP server (see MCP_ALLOWED_ORIGINS)',
  };
}

export function transportPolicyOf(
  config: Pick<AppConfig, 'host' | 'mcpAllowedOrigins'>,
): TransportSecurityPolicy {
  const allowedOrigins = new Set<string>();
  for (const entry of config.mcpAllowedOrigins) {
    const normalised = normaliseOrigin(entry);
    if (normalised !== undefined) allowedOrigins.add(normalised);
  }
  return { allowedOrigins, loopbackBound: LOOPBACK_NAMES.has(config.host.toLowerCase()) };
}

/**
 * Registers the transport checks as a Fastify `onRequest` hook: `Host` on every route of a
 * loopback-bound server, `Origin` on `/mcp`. It runs before the body is read and before
 * authentication, so a refused browser request costs nothing. Refusals answer 403 with the API
 * envelope; those on `/mcp` count in
 * `mcp_transport_rejections_total` (when the response is sent, see `registerMcpRejectionMetrics`).
 */
export function registerMcpTransportSecurity(
  fastify: FastifyInstance,
  config: Pick<AppConfig, 'host' | 'mcpAllowedOrigins'>,
): void {
  const policy = transportPolicyOf(config);
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const mcp = pathOf(request.url) === MCP_PATH;
    if (!mcp && !policy.loopbackBound) return;
    const origin = mcp ? header(request, 'origin') : undefined;
    const verdict = evaluateTransport(policy, origin, header(request, 'host'));
    if (verdict.allowed) return;
    noteTransportRejection(request, verdict.reason);
    await reply
      .status(httpStatusOf(verdict.code))
      .header('content-type', 'application/json')
      .send(toEnvelope(verdict.code, verdict.message));
  });
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** `scheme://host[:port]` in lower case with default ports dropped, or undefined if not an origin. */
export function normaliseOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return url.origin.toLowerCase();
}

/** Host header (`name[:port]`, IPv6 in brackets) naming a loopback interface. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const value = host.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value);
  return match !== null && LOOPBACK_NAMES.has(match[1]);
}
