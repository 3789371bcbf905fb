// A loopback HTTP proxy for the conformance suite, which cannot send an Authorization header in
// server mode. It forwards every request to `target` unchanged — method, path, body and every
// header, Host and Origin included (the DNS-rebinding scenario depends on them) — adding only
// `Authorization: Bearer <token>`, and streams the answer back as it comes (SSE included).
import http from 'node:http';

/**
 * @param {{ target: string; token: string; port?: number }} options  target: e.g.
 *   http://127.0.0.1:40123; port: where to listen (default: any free port)
 * @returns {Promise<{ url: string; close(): Promise<void> }>}
 */
export async function startAuthProxy({ target, token, port: listenPort = 0 }) {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    const forward = http.request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    forward.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`auth proxy: upstream failed: ${err.message}`);
    });
    req.pipe(forward);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, '127.0.0.1', resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
