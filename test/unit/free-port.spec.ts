import { readFileSync } from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/server-process.mjs';
import { skipWhen } from '../support/skip.js';

// CI once lost a server start to EADDRINUSE: the port had come from listen(0), so it lay in the
// kernel's ephemeral range and an outgoing connection took it between the probe and the server's
// own listen. Every test server, Redis, proxy and Prometheus port comes from freePort.
const range = (() => {
  try {
    return readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
  } catch {
    return undefined;
  }
})();

describe('freePort', () => {
  it('hands out distinct ports that can be bound', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports.slice(0, 3)) {
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it(
    'never from the kernel ephemeral range, where an outgoing connection could take it',
    skipWhen(
      (range === undefined || range[0] <= 12_000) &&
        'the kernel ephemeral range is unreadable or starts too low to draw below it',
    ),
    async () => {
      const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
      for (const port of ports) expect(port).toBeLessThan(range![0]);
    },
  );
});
