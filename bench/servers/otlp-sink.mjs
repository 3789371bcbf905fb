// The tracing scenarios' collector: an OTLP/HTTP endpoint in its own process that takes every
// export (`POST /v1/traces`, any encoding) and answers 200, so the traced servers pay the whole
// cost of exporting (batching, encoding, the request) and the load generator none of receiving.
// Env: PORT (loopback). Prints `ready <port>` and, on exit, how many exports and bytes it took.
import { createServer } from 'node:http';

let exports = 0;
let bytes = 0;
const server = createServer((req, res) => {
  req.on('data', (chunk) => (bytes += chunk.length));
  req.on('end', () => {
    exports += 1;
    res.writeHead(200).end();
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`ready ${server.address().port}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT'])
  process.on(signal, () => {
    process.stdout.write(`exports ${exports} bytes ${bytes}\n`);
    server.close(() => process.exit(0));
  });
