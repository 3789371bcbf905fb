// Scenario D, the floor: a bare Fastify route in its own process. It parses the same JSON-RPC
// request body A sends and answers a JSON body of the same size (A's own answer, captured by the
// benchmark before the run), with no authentication, no database and no framework around it.
// Env: PORT (loopback), FLOOR_RESPONSE (the JSON body to answer, with the request's id put in).
import Fastify from 'fastify';

const response = JSON.parse(process.env.FLOOR_RESPONSE ?? '{}');
const app = Fastify({ logger: false });
app.post('/mcp', async (request) => ({ ...response, id: request.body?.id ?? null }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`ready ${app.server.address().port}\n`);
for (const signal of ['SIGTERM', 'SIGINT'])
  process.on(signal, () => void app.close().then(() => process.exit(0)));
