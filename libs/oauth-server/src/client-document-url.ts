import { BlockList, isIP } from 'node:net';

/**
 * Special-use address ranges a Client ID Metadata Document is never fetched from (unless the
 * development flag allows them): "this network", private (RFC 1918, RFC 4193), shared (CGNAT),
 * loopback, link-local, documentation, benchmarking, multicast and reserved ranges.
 */
const SPECIAL_USE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  SPECIAL_USE.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  SPECIAL_USE.addSubnet(network, prefix, 'ipv6');

/** True for an IP address in a private, loopback, link-local or other special-use range. */
export function isSpecialUseAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  const family = isIP(bare);
  if (family === 4) return SPECIAL_USE.check(bare, 'ipv4');
  if (family !== 6) return false;
  const mapped = ipv4Mapped(bare);
  if (mapped !== undefined) return SPECIAL_USE.check(mapped, 'ipv4');
  return SPECIAL_USE.check(bare, 'ipv6');
}

/** `::ffff:7f00:1` / `::ffff:127.0.0.1` → `127.0.0.1`. */
function ipv4Mapped(address: string): string | undefined {
  const match = /^(?:0{0,4}:){0,4}:?(?:0{0,4}:)?ffff:(.+)$/.exec(address);
  if (match?.[1] === undefined) return undefined;
  const tail = match[1];
  if (isIP(tail) === 4) return tail;
  const groups = tail.split(':');
  if (groups.length !== 2 || !groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  const [high = 0, low = 0] = groups.map((g) => Number.parseInt(g, 16));
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/**
 * Why a Client ID Metadata Document URL is not fetched, or undefined when it may be: it must be
 * an https URL with a path (MCP 2025-11-25), and — unless private hosts are allowed for
 * development — must not name a special-use IP address or a `localhost` name. A DNS name that
 * resolves to such an address is refused at connect time by the library's guarded fetch.
 */
export function clientDocumentUrlRefusal(
  clientId: string,
  allowPrivateHosts: boolean,
): string | undefined {
  const url = URL.parse(clientId);
  if (url === null || url.protocol !== 'https:') return 'is not an https URL';
  if (url.pathname === '/' || url.pathname === '') return 'has no path';
  if (allowPrivateHosts) return undefined;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'names this machine';
  if (isSpecialUseAddress(host)) return 'is on a private, loopback or link-local address';
  return undefined;
}
