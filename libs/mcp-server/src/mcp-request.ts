import type { FastifyRequest } from 'fastify';
import { MCP_PATH } from '@app/config';

/**
 * Whether a request is for the MCP endpoint: the route the router matched, or for a request no
 * route took (a refusal before routing, a 404), any spelling of the path that some decoder could
 * take for `/mcp`.
 */
export function isMcpRequest(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  if (route !== undefined && route !== '' && route !== '*') return route === MCP_PATH;
  return isMcpPath(normalisedPath(parseTarget(request.raw.url ?? request.url).pathAndQuery));
}

export function isMcpPath(path: string): boolean {
  return path === MCP_PATH || path.startsWith(`${MCP_PATH}/`);
}

/**
 * A path as the most lenient decoder on the way could read it: the query, fragment and `;`
 * parameters dropped, percent-escapes decoded until none is left (double encoding, `%2F`),
 * backslashes as slashes, lower case, empty and dot segments resolved, no trailing slash. Used to
 * decide which rules apply, never to route: `/%6dcp`, `/%256dcp`, `//mcp`, `/MCP/`, `/mcp;x`,
 * `/x/../mcp` all get the rules of `/mcp`.
 */
export function normalisedPath(pathAndQuery: string): string {
  let path = pathAndQuery.split(/[?#]/, 1)[0] ?? '';
  for (let round = 0; round < 8 && /%[0-9a-f]{2}/i.test(path); round++)
    path = path.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  const segments: string[] = [];
  for (const raw of path.replaceAll('\\', '/').toLowerCase().split('/')) {
    const segment = raw.split(';', 1)[0] ?? '';
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

/** The authority of an absolute-form target (RFC 9112 §3.2.2: it overrides Host) and the rest. */
export function parseTarget(target: string): { authority?: string; pathAndQuery: string } {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)(.*)$/is.exec(target);
  if (absolute === null) return { pathAndQuery: target };
  const rest = absolute[2] ?? '';
  return { authority: absolute[1] ?? '', pathAndQuery: rest.startsWith('/') ? rest : `/${rest}` };
}
