/**
 * Where the MCP endpoint lives on this server. The one declaration: the controller's route, the
 * MCP URL (`AppConfig.mcpUrl`, the audience of OAuth tokens), the request gate's Origin rule and
 * the metrics that set `/mcp` apart all read it.
 */
export const MCP_PATH = '/mcp';

/**
 * The names of this machine's loopback interface, spelt as WHATWG URL parsing spells a hostname
 * (lower case, IPv6 in brackets). A server bound to one of them validates `Host` (DNS rebinding);
 * redirect URIs and upstream issuers on them may use plain HTTP.
 */
export const LOOPBACK_HOSTNAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether `hostname` names the loopback interface: a URL's `hostname` (`[::1]`), a bind address
 * (`::1`) or a Host name with the root's trailing dot (`localhost.`), in any case. IPv4 and IPv6
 * spellings are normalised as URL parsing does (`[0:0:0:0:0:0:0:1]`, `127.1`), so every copy of
 * this test answers alike.
 */
export function isLoopbackHostname(hostname: string): boolean {
  let name = hostname.trim().toLowerCase();
  if (name.includes(':') && !name.startsWith('[')) name = `[${name}]`;
  const parsed = URL.parse(`http://${name}/`);
  if (parsed === null || parsed.username !== '' || parsed.pathname !== '/') return false;
  return LOOPBACK_HOSTNAMES.has(parsed.hostname.replace(/\.$/, ''));
}
