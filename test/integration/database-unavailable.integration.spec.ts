import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEEDS_REAL_POSTGRES, skipWhen } from '../support/skip.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Failures are bounded: with a TCP proxy of the test's own between the server and its Postgres,
 * a frozen database (TCP up, no bytes), a cut one and a slow one. A request that cannot reach the
 * database answers 503 SERVICE_UNAVAILABLE with Retry-After and the envelope within a few seconds
 * (the statement/read and connection timeouts), on REST and on the MCP transport: never a hang,
 * never a 500. Once the database is back, requests succeed again without a restart.
 *
 * Real Postgres only (`DATABASE_URL`): the proxy needs the database's address before the server
 * starts, and the embedded engine's port is chosen at start.
 */

const ADMIN_URL = process.env.DATABASE_URL;
const STATEMENT_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 1_000;
/** Statement timeout + client read margin + connect timeout, and generous room for a busy machine. */
const ANSWER_WITHIN_MS = 15_000;

interface Timed {
  status: number;
  retryAfter: string | null;
  body: unknown;
  ms: number;
}

/** 503 SERVICE_UNAVAILABLE with Retry-After and the envelope, in bounded time. */
function expectUnavailable(answer: Timed): void {
  expect(answer).toMatchObject({
    status: 503,
    body: { error: { code: 'SERVICE_UNAVAILABLE' } },
  });
  expect(Number(answer.retryAfter)).toBeGreaterThan(0);
  expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
}

/**
 * A tools/call while the database is away: the transport's 503 when authenticating needs the
 * database, or, when this replica's token cache answered for the caller, the tool's own
 * unavailable outcome (`isError` with SERVICE_UNAVAILABLE and when to retry); never a 500.
 */
function expectToolCallUnavailable(answer: Timed): void {
  if (answer.status === 503) {
    expectUnavailable(answer);
    return;
  }
  expect(answer).toMatchObject({ status: 200, body: { result: { isError: true } } });
  // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- matched just above
  const result = (answer.body as { result: { content: Array<{ text: string }> } }).result;
  // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- the API's envelope, checked field by field
  const envelope = JSON.parse(result.content[0]?.text ?? '{}') as {
    error?: { code?: string; details?: { retry_after_seconds?: number } };
  };
  expect(envelope.error?.code).toBe('SERVICE_UNAVAILABLE');
  expect(envelope.error?.details?.retry_after_seconds).toBeGreaterThan(0);
  expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
}

describe(
  'database frozen, cut or slow (TCP proxy on real Postgres)',
  skipWhen(NEEDS_REAL_POSTGRES),
  () => {
    let proxy: TcpProxy;
    let t: TestServer;
    beforeAll(async () => {
      const target = new URL(ADMIN_URL ?? '');
      proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
      t = await startTestServer(
        {
          dbStatementTimeoutMs: STATEMENT_TIMEOUT_MS,
          dbConnectTimeoutMs: CONNECT_TIMEOUT_MS,
          dbPoolSize: 4,
        },
        {
          databaseUrl: (url) => {
            const via = new URL(url);
            via.host = proxy.address;
            return via.toString();
          },
        },
      );
    });
    afterAll(async () => {
      try {
        proxy.set('pass');
        await t?.close();
      } finally {
        await proxy?.close();
      }
    });

    const timed = async (path: string, init: RequestInit & { token?: string } = {}) => {
      const started = Date.now();
      const res = await t.request(path, { token: 'owner', ...init });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: kept as text for the failure message
      }
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body,
        ms: Date.now() - started,
      } satisfies Timed;
    };

    /** /v1/me's status once the database is back: 200 as soon as it answers, polled within the bound. */
    const statusOnceBack = async (): Promise<number> => {
      const deadline = Date.now() + ANSWER_WITHIN_MS;
      let status = 0;
      while (status !== 200 && Date.now() < deadline) status = (await timed('/v1/me')).status;
      return status;
    };

    const mcpCall = (token = 'owner'): Promise<Timed> =>
      timed('/mcp', {
        token,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'list_accounts', arguments: { limit: 1 } },
        }),
      });

    it('passes through: the server works over the proxy', async () => {
      expect((await timed('/v1/me')).status).toBe(200);
      expect((await timed('/v1/accounts?limit=1')).status).toBe(200);
    });

    it('frozen: 12 concurrent requests and /v1/me all answer 503 + Retry-After in seconds; MCP too', async () => {
      proxy.set('freeze');
      try {
        const answers = await Promise.all([
          ...Array.from({ length: 12 }, () => timed('/v1/accounts?limit=5')),
          timed('/v1/me'),
          // A token this replica never resolved: authenticating it needs the database.
          mcpCall('member'),
        ]);
        for (const answer of answers) expectUnavailable(answer);
        // A token the replica's cache knows: the call reaches the tool, which says it cannot run.
        expectToolCallUnavailable(await mcpCall('owner'));
        // Readiness says so too (its own ping timeout), while liveness stays up.
        expect((await timed('/health/ready')).status).toBe(503);
        expect((await timed('/health/live')).status).toBe(200);
      } finally {
        proxy.set('pass');
      }
      // Back: no restart needed.
      expect(await statusOnceBack()).toBe(200);
    });

    it('cut: every connection dropped and refused → 503 + Retry-After, then recovers', async () => {
      proxy.set('cut');
      try {
        const answers = await Promise.all([
          timed('/v1/accounts?limit=5'),
          timed('/v1/me'),
          mcpCall('member'),
        ]);
        for (const answer of answers) expectUnavailable(answer);
        expectToolCallUnavailable(await mcpCall('owner'));
      } finally {
        proxy.set('pass');
      }
      expect(await statusOnceBack()).toBe(200);
    });

    it('slow (150 ms each way per packet): still answered correctly, within the bounds', async () => {
      proxy.set({ slowMs: 150 });
      try {
        const answer = await timed('/v1/accounts?limit=1');
        expect(answer.status).toBe(200);
        expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
      } finally {
        proxy.set('pass');
      }
    });
  },
);
