import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { IncomingMessage, ServerResponse } from 'node:http';

const run = promisify(execFile);

/** Where openssl is, or undefined (the tests that need it skip, saying so). */
export function opensslPath(): string | undefined {
  return ['/usr/bin/openssl', '/usr/local/bin/openssl', '/bin/openssl'].find((p) => existsSync(p));
}

/** A throwaway CA and a server certificate for 127.0.0.1, ::1, localhost (and `extraName`). */
export interface ThrowawayCertificate {
  /** The CA certificate (PEM file): what a child process trusts via NODE_EXTRA_CA_CERTS. */
  caFile: string;
  key: string;
  cert: string;
  dispose(): Promise<void>;
}

/**
 * Makes a CA and a loopback server certificate signed by it with openssl, in a temporary
 * directory. Nothing is added to any system trust store: only a process started with
 * `NODE_EXTRA_CA_CERTS=<caFile>` trusts it.
 */
export async function throwawayCertificate(
  openssl: string,
  extraName?: string,
): Promise<ThrowawayCertificate> {
  const dir = await mkdtemp(join(tmpdir(), 'loopback-tls-'));
  const file = (name: string): string => join(dir, name);
  const ssl = (...args: string[]): Promise<unknown> => run(openssl, args, { cwd: dir });
  await ssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', file('ca.key'));
  await ssl(
    'req',
    '-x509',
    '-new',
    '-key',
    file('ca.key'),
    '-subj',
    '/CN=Throwaway test CA',
    '-days',
    '2',
    '-out',
    file('ca.pem'),
  );
  await ssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', file('server.key'));
  await ssl(
    'req',
    '-new',
    '-key',
    file('server.key'),
    '-subj',
    '/CN=localhost',
    '-out',
    file('server.csr'),
  );
  await writeFile(
    file('server.ext'),
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=digitalSignature',
      'extendedKeyUsage=serverAuth',
      `subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost${extraName ? `,DNS:${extraName}` : ''}`,
      '',
    ].join('\n'),
  );
  await ssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  );
  return {
    caFile: file('ca.pem'),
    key: await readFile(file('server.key'), 'utf8'),
    cert: await readFile(file('server.pem'), 'utf8'),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

/** An HTTPS server on 127.0.0.1 that counts TLS handshakes and requests per path. */
export interface LoopbackHttpsServer {
  /** e.g. https://127.0.0.1:40123 */
  origin: string;
  port: number;
  /** Completed TLS handshakes (the peer accepted our certificate). */
  handshakes(): number;
  /** Requests received for a path. */
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startLoopbackHttps(
  certificate: ThrowawayCertificate,
  handler: (req: IncomingMessage, res: ServerResponse, origin: string) => void,
): Promise<LoopbackHttpsServer> {
  let handshakes = 0;
  const hits = new Map<string, number>();
  let origin = '';
  const server: Server = createServer(
    { key: certificate.key, cert: certificate.cert },
    (req, res) => {
      const path = new URL(req.url ?? '/', origin).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      handler(req, res, origin);
    },
  );
  server.on('secureConnection', () => (handshakes += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- a TCP server's address is AddressInfo
  const port = (server.address() as AddressInfo).port;
  origin = `https://127.0.0.1:${port}`;
  return {
    origin,
    port,
    handshakes: () => handshakes,
    hits: (path) => hits.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
