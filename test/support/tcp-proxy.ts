import net from 'node:net';

export type ProxyMode = 'pass' | 'freeze' | 'cut' | { slowMs: number };

/**
 * A TCP proxy of the test's own between the server and Postgres, to misbehave on demand:
 * - `pass`: forwards both ways;
 * - `freeze`: keeps every connection open and accepts new ones, but forwards nothing (a database
 *   that stopped answering: TCP up, no bytes);
 * - `cut`: destroys every open connection and every new one at once (a database gone);
 * - `{ slowMs }`: forwards each chunk after that delay (a slow network or server).
 * Bytes held during a freeze are delivered, in order, when the mode returns to `pass`.
 */
export interface TcpProxy {
  /** `host:port` to connect to instead of the target. */
  address: string;
  port: number;
  set(mode: ProxyMode): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let mode: ProxyMode = 'pass';
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket; flush(): void }>();

  const server = net.createServer((client) => {
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    const held: { to: net.Socket; chunk: Buffer }[] = [];
    const forward = (to: net.Socket, chunk: Buffer): void => {
      const current = mode;
      if (current === 'freeze') held.push({ to, chunk });
      else if (current === 'cut') return;
      else if (current === 'pass') to.write(chunk);
      else setTimeout(() => to.destroyed || to.write(chunk), current.slowMs);
    };
    const pair = {
      client,
      upstream,
      flush: () => {
        for (const { to, chunk } of held.splice(0)) if (!to.destroyed) to.write(chunk);
      },
    };
    pairs.add(pair);
    client.on('data', (chunk: Buffer) => forward(upstream, chunk));
    upstream.on('data', (chunk: Buffer) => forward(client, chunk));
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  return {
    address: `127.0.0.1:${port}`,
    port,
    set(next) {
      mode = next;
      if (next === 'cut')
        for (const p of pairs) {
          p.client.destroy();
          p.upstream.destroy();
        }
      if (next === 'pass') for (const p of pairs) p.flush();
    },
    close: async () => {
      for (const p of pairs) {
        p.client.destroy();
        p.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
