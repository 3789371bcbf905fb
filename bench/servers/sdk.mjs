// Scenario E: the official TypeScript SDK v2 (`@modelcontextprotocol/server` 2.4.0) serving one
// tool equivalent to our `get_portal_user`, in its own process, composed the way the SDK spike
// (docs: sdk-v2-spike.md) found workable: Fastify 5, `createMcpHandler(factory)` with a low-level
// `Server` over a prebuilt handler table, `toNodeHandler` from `@modelcontextprotocol/node`, the
// body Fastify already parsed handed on, and our own bearer check in an `onRequest` hook.
//
// Per request it does what an equivalent production tool must: resolve the bearer token with the
// same principal query our server uses (one indexed query), check scope and permission, read the
// row by the same index (organisation, id), and answer the same result. On `/mcp` it has no rate
// limits, no call history, no log line and no metrics (our server has all four), so it does
// strictly less work than A; `/mcp-limited` adds the two Postgres-backed rate limits (scenario
// E+rl), and with REDIS_URL `/mcp-limited-redis` the same two budgets in Redis (scenario
// E+rl+redis).
// Env: PORT (loopback), DATABASE_URL, DB_POOL_SIZE (default 10), REDIS_URL (optional).
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { Redis } from 'ioredis';
import { RateLimiterPostgres, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import {
  createMcpHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';

// The build's rate-limiter options (`npm run build` first): pure functions, no app code.
const { postgresLimiterOptions, redisLimiterOptions } = await import(
  new URL('../../dist/libs/rate-limit/src/limiter-options.js', import.meta.url).href
);

const db = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DB_POOL_SIZE ?? 10),
  application_name: 'bench-sdk',
});

const PRINCIPAL_SQL = `SELECT t.id AS token_id, t.kind, t.scopes, t.client_name, t.expires_at, t.revoked_at,
        t.organization_id, t.user_id, m.status AS membership_status, m.permissions
   FROM api_tokens t
   JOIN organizations o ON o.id = t.organization_id
   JOIN users u ON u.id = t.user_id
   LEFT JOIN memberships m ON m.organization_id = t.organization_id AND m.user_id = t.user_id
  WHERE t.secret_hash = $1`;
// The portal user's DTO columns, in its order: JSON writes each timestamp as ISO 8601 text, as the
// DTO does, so the row is answered as it comes (the text content and `structuredContent` alike).
const ROW_SQL = `SELECT id, email, name, external_id, account_id, status, invitation_sent_at,
        invitation_expires_at, activated_at, deactivated_at, created_at, updated_at
   FROM portal_users WHERE organization_id = $1 AND id = $2`;

const toolResult = (value, isError = false) => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: value,
  ...(isError ? { isError: true } : {}),
});
const envelope = (code, message) => toolResult({ error: { code, message } }, true);

/** The prebuilt table: built once, shared by every per-request `Server` (as the spike did). */
const TOOLS = new Map([
  [
    'get_portal_user',
    {
      definition: {
        name: 'get_portal_user',
        description: 'Get a portal user',
        inputSchema: {
          type: 'object',
          properties: { id: { type: 'string', format: 'uuid' } },
          required: ['id'],
          additionalProperties: false,
        },
        annotations: { readOnlyHint: true },
      },
      argumentNames: new Set(['id']),
      scope: 'portal_users:read',
      permission: 'portal_users.read',
      async handler(args, principal) {
        const { rows } = await db.query(ROW_SQL, [principal.organization_id, String(args.id)]);
        if (rows.length === 0) return envelope('NOT_FOUND', 'Portal user not found');
        return toolResult(rows[0]);
      },
    },
  ],
]);
const TOOLS_LIST = { tools: [...TOOLS.values()].map((t) => t.definition) };

async function callTool(request, ctx) {
  const { name, arguments: args = {} } = request.params;
  const tool = TOOLS.get(name);
  if (tool === undefined)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  for (const key of Object.keys(args)) {
    if (!tool.argumentNames.has(key))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown argument "${key}"`);
  }
  const principal = ctx.http?.authInfo?.extra?.principal;
  if (!principal.scopes.includes(tool.scope)) return envelope('insufficient_scope', 'scope');
  if (principal.membership_status !== 'active')
    return envelope('membership_inactive', 'membership');
  if (!(principal.permissions ?? []).includes(tool.permission))
    return envelope('insufficient_permission', 'permission');
  try {
    return await tool.handler(args, principal);
  } catch {
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error');
  }
}

const factory = () => {
  const server = new Server(
    { name: 'bench-sdk', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler('tools/list', () => TOOLS_LIST);
  server.setRequestHandler('tools/call', (request, ctx) => callTool(request, ctx));
  return server;
};
const handler = toNodeHandler(createMcpHandler(factory, { onerror: () => undefined }));

// `/mcp-limited`: the same, plus the two budgets our server keeps (per client IP before the token
// lookup, per token after it) with the same library, store, table and options: the limiters'
// options are our server's own (`limiter-options.js` of the build, a module that imports nothing),
// so E can also be compared doing equal work. Keys are prefixed `sdk-…` so they never share a
// budget with the server; the budget is too large to refuse anyone.
const POINTS = 100_000_000;
const limiter = (keyPrefix) =>
  new RateLimiterPostgres(postgresLimiterOptions(db, keyPrefix, POINTS, 60));
// The same budgets in Redis.
const redis =
  process.env.REDIS_URL === undefined
    ? undefined
    : new Redis(process.env.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
const redisLimiter = (keyPrefix) =>
  new RateLimiterRedis(redisLimiterOptions(redis, keyPrefix, POINTS, 60));
const budgets = {
  '/mcp-limited': { perIp: limiter('sdk-ip'), perToken: limiter('sdk-token') },
  ...(redis === undefined
    ? {}
    : {
        '/mcp-limited-redis': {
          perIp: redisLimiter('sdk-ip'),
          perToken: redisLimiter('sdk-token'),
        },
      }),
};
async function allowed(limit, key, reply) {
  try {
    await limit.consume(key, 1);
    return true;
  } catch (res) {
    if (!(res instanceof RateLimiterRes)) throw res;
    await reply.code(429).send({ error: { code: 'RATE_LIMITED', message: 'rate limited' } });
    return false;
  }
}

const app = Fastify({ logger: false });
app.addHook('onRequest', async (request, reply) => {
  const limits = budgets[request.url];
  if (limits !== undefined && !(await allowed(limits.perIp, request.ip, reply))) return reply;
  const header = request.headers.authorization ?? '';
  const secret = header.startsWith('Bearer ') ? header.slice(7) : '';
  const hash = createHash('sha256').update(secret, 'utf8').digest('hex');
  const { rows } = await db.query(PRINCIPAL_SQL, [hash]);
  const row = rows[0];
  if (secret === '' || row === undefined || row.revoked_at !== null) {
    return reply.code(401).send({ error: { code: 'INVALID_TOKEN', message: 'invalid token' } });
  }
  if (limits !== undefined && !(await allowed(limits.perToken, row.token_id, reply))) return reply;
  request.raw.auth = {
    token: secret,
    clientId: row.token_id,
    scopes: row.scopes,
    extra: { principal: row },
  };
});
const route = async (request, reply) => {
  if (Array.isArray(request.body)) {
    return reply
      .code(400)
      .send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch' } });
  }
  reply.hijack();
  await handler(request.raw, reply.raw, request.body);
};
app.post('/mcp', route);
app.post('/mcp-limited', route);
if (redis !== undefined) app.post('/mcp-limited-redis', route);

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`ready ${app.server.address().port}\n`);
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(
    signal,
    () =>
      void app
        .close()
        .then(() => db.end())
        .then(() => redis?.quit())
        .then(() => process.exit(0)),
  );
}
