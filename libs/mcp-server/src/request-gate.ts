import type { FastifyReply, FastifyRequest } from 'fastify';
import { isLoopbackHostname, type AppConfig } from '@app/config';
import { httpStatusOf, toEnvelope, type ErrorCode } from '@app/errors';
import type { TransportRejectionReason } from '@app/metrics';
import { noteTransportRejection } from './mcp-rejection.metrics.js';
import { isMcpPath, isMcpRequest, normalisedPath, parseTarget } from './mcp-request.js';

/** What the gate does with one request. */
export type GateVerdict =
  | { kind: 'pass' }
  | { kind: 'redirect'; location: string; message: string }
  | {
      kind: 'refuse';
      code: Extract<ErrorCode, 'ORIGIN_NOT_ALLOWED' | 'HOST_NOT_ALLOWED'>;
      reason: TransportRejectionReason;
      message: string;
    };

export interface GatePolicy {
  /** Normalised origins (`scheme://host[:port]`, lower case) allowed to call `/mcp` from a browser. */
  allowedOrigins: ReadonlySet<string>;
  /** The server listens on loopback only: validate Host (DNS rebinding) on every route. */
  loopbackBound: boolean;
  /** The one address of this server (`AppConfig.baseUrl`). */
  baseUrl: URL;
}

/** What the gate reads of a request: the request target as sent, and two headers. */
export interface GateRequest {
  method: string;
  /** The request target as received: origin-form (`/path?query`) or absolute-form (`http://host/path`). */
  target: string;
  host: string | undefined;
  origin: string | undefined;
}

/**
 * The one request gate: every request, whichever route or mounted middleware answers it (REST,
 * `/mcp`, the OAuth server's `/oauth/*`, the console, the 404 handler), is decided here first, on
 * the host it names and on its path as normalised below. Decisions (DNS-rebinding defence: the
 * MCP transports spec's security warning and the conformance suite's `dns-rebinding-protection`):
 * - Loopback-bound: the host (the absolute-form target's authority, else `Host`) must be a loopback
 *   name or address, or the public base URL's host; anything else (a rebinding name such as
 *   evil.example) is refused with 403 HOST_NOT_ALLOWED. Bound elsewhere (0.0.0.0 behind an
 *   ingress), Host is the ingress's business.
 * - One host name: on a loopback-bound server whose base URL is itself a loopback URL, a request
 *   for another loopback name (`localhost` when the base URL says `127.0.0.1`) is a request for
 *   another origin of this same server, whose cookies and OAuth issuer differ: GET and HEAD are
 *   redirected (308) to the base URL, anything else is refused with a message naming it.
 * - `Origin` on `/mcp` (any spelling of the path that some decoder could take for it): absent is
 *   allowed (non-browser clients send none); present, only when listed in MCP_ALLOWED_ORIGINS. An
 *   empty list allows no browser origin, a loopback one included. `Origin: null` is never allowed.
 */
export function evaluateRequest(policy: GatePolicy, request: GateRequest): GateVerdict {
  const target = parseTarget(request.target);
  if (policy.loopbackBound) {
    const hostname = hostnameOf(target.authority ?? request.host);
    const canonical = policy.baseUrl.hostname;
    const base = policy.baseUrl.href.replace(/\/$/, '');
    if (
      hostname === undefined ||
      (!isLoopbackHostname(hostname) && hostname !== stripRootDot(canonical))
    ) {
      return {
        kind: 'refuse',
        code: 'HOST_NOT_ALLOWED',
        reason: 'host_not_allowed',
        message: `This server listens on loopback only and answers as ${base}; the Host header must name ${policy.baseUrl.host} (or localhost, 127.0.0.1, [::1])`,
      };
    }
    if (
      isLoopbackHostname(canonical) &&
      isLoopbackHostname(hostname) &&
      hostname !== stripRootDot(canonical)
    ) {
      const location = `${base}${target.pathAndQuery}`;
      if (request.method === 'GET' || request.method === 'HEAD')
        return {
          kind: 'redirect',
          location,
          message: `This server answers as ${base}; this page is at ${location}`,
        };
      return {
        kind: 'refuse',
        code: 'HOST_NOT_ALLOWED',
        reason: 'host_not_allowed',
        message: `This server answers as ${base} (one host name, so that sessions, cookies and OAuth metadata agree): send this request to ${location}`,
      };
    }
  }
  if (request.origin === undefined || !isMcpPath(normalisedPath(target.pathAndQuery)))
    return { kind: 'pass' };
  const origin = normaliseOrigin(request.origin);
  if (origin !== undefined && policy.allowedOrigins.has(origin)) return { kind: 'pass' };
  return {
    kind: 'refuse',
    code: 'ORIGIN_NOT_ALLOWED',
    reason: 'origin_not_allowed',
    message: 'Browser origin not allowed to call this MCP server (see MCP_ALLOWED_ORIGINS)',
  };
}

export function gatePolicyOf(
  config: Pick<AppConfig, 'loopbackBound' | 'mcpAllowedOrigins' | 'baseUrl'>,
): GatePolicy {
  const allowedOrigins = new Set<string>();
  for (const entry of config.mcpAllowedOrigins) {
    const normalised = normaliseOrigin(entry);
    if (normalised !== undefined) allowedOrigins.add(normalised);
  }
  return { allowedOrigins, loopbackBound: config.loopbackBound, baseUrl: new URL(config.baseUrl) };
}

/**
 * The gate as a Fastify `onRequest` hook. The server adds it (after the per-IP budget) ahead of
 * every other hook, the one Nest adds for mounted middleware included (see
 * `createFastifyAdapter`), so no route is answered before it decided. It runs before the body is
 * read and before authentication: a refused request costs nothing. Refusals answer with the API
 * envelope; those on `/mcp` count in `mcp_transport_rejections_total` (when the response is sent,
 * see `registerMcpRejectionMetrics`). The policy is read on the first request, when the port
 * (PORT=0) and so the base URL are final.
 */
export function requestGate(
  config: Pick<AppConfig, 'loopbackBound' | 'mcpAllowedOrigins' | 'baseUrl'>,
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  let policy: GatePolicy | undefined;
  return async (request, reply) => {
    policy ??= gatePolicyOf(config);
    const verdict = evaluateRequest(policy, {
      method: request.method,
      target: request.raw.url ?? request.url,
      host: header(request, 'host'),
      origin: header(request, 'origin'),
    });
    switch (verdict.kind) {
      case 'pass':
        return;
      case 'redirect':
        await reply
          .status(308)
          .header('location', verdict.location)
          .header('content-type', 'application/json')
          .send(toEnvelope('HOST_NOT_ALLOWED', verdict.message));
        return;
      case 'refuse':
        if (isMcpRequest(request)) noteTransportRejection(request, verdict.reason);
        await reply
          .status(httpStatusOf(verdict.code))
          .header('content-type', 'application/json')
          .send(toEnvelope(verdict.code, verdict.message));
    }
  };
}

/** The host name a Host value (`name[:port]`, IPv6 in brackets) names, as URL parsing spells it. */
function hostnameOf(host: string | undefined): string | undefined {
  if (host === undefined) return undefined;
  const value = host.trim();
  // A Host is a name and a port: no userinfo, path, or anything URL parsing would quietly drop.
  if (!/^(\[[0-9a-f:.]+\]|[^:/?#@[\]\\\s%]+)(:\d{0,5})?$/i.test(value)) return undefined;
  const parsed = URL.parse(`http://${value}/`);
  return parsed === null ? undefined : stripRootDot(parsed.hostname);
}

function stripRootDot(hostname: string): string {
  return hostname.replace(/\.$/, '');
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
