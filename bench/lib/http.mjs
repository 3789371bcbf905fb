// A small keep-alive HTTP client (node:http) for setup and for the scenarios autocannon cannot
// drive (G and H chain two requests and read the first answer).
import http from 'node:http';

export function createClient(baseUrl, { maxSockets = 16 } = {}) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  /** One request; resolves `{ status, headers, text, json, ms }` (json: parsed body or undefined). */
  function request(method, path, { headers = {}, body } = {}) {
    const payload =
      body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const h = { ...headers };
    if (payload !== undefined) {
      h['content-type'] ??= 'application/json';
      h['content-length'] = Buffer.byteLength(payload);
    }
    const started = process.hrtime.bigint();
    return new Promise((resolveRes, reject) => {
      const req = http.request(
        { host: url.hostname, port: url.port, method, path, headers: h, agent },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json;
            try {
              json = text === '' ? undefined : JSON.parse(text);
            } catch {
              json = undefined;
            }
            const ms = Number(process.hrtime.bigint() - started) / 1e6;
            resolveRes({ status: res.statusCode, headers: res.headers, text, json, ms });
          });
          res.on('error', reject);
        },
      );
      req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }
  return { request, close: () => agent.destroy() };
}

/**
 * Runs `task(item)` over `items` with `concurrency` workers, stopping early at `deadline` (ms since
 * the epoch). Resolves the per-item results in completion order (`undefined` for items not run).
 */
export async function pool(items, concurrency, task, deadline = Infinity) {
  const results = [];
  let next = 0;
  async function worker() {
    while (next < items.length && Date.now() < deadline) {
      const item = items[next++];
      results.push(await task(item));
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
