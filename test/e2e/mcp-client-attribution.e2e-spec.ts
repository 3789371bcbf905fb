import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startBuiltServers, type BuiltServer } from '../support/built-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import type { Json } from '../support/mcp-peers.js';
import { legacyInitialize, legacyToolCall, type RawResponse } from '../support/raw-mcp.js';

/**
 * A 2025-era client is named in the call history, the audit trail and the logs although the server
 * keeps no session: `initialize` answers with a signed `Mcp-Session-Id` carrying its `clientInfo`,
 * which the client sends back on every request. Without a session id, the `User-Agent` product
 * names it; an id the server did not issue is a 404, after which the client initializes again.
 */

let t: TestServer;

/** The revision these clients speak, and the client version their initialize names. */
const REVISION = { protocolVersion: '2025-11-25', clientVersion: '1' };

/** A 2025-11-25 `tools/call` as `server`'s owner, with this X-Request-Id and extra headers. */
function call2025(
  server: { url: string; tokens: { owner: string } },
  tool: string,
  args: Record<string, unknown>,
  requestId: string,
  headers: Record<string, string>,
): Promise<RawResponse> {
  return legacyToolCall(server.url, server.tokens.owner, tool, args, {
    requestId,
    protocolVersion: REVISION.protocolVersion,
    headers,
  });
}

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => t?.close());

/** The history row of the call the client sent with this X-Request-Id (its correlation id). */
async function historyRow(requestId: string): Promise<Json> {
  const res = await t.request('/v1/mcp/tool-calls?tool=create_account&limit=100', {
    token: 'owner',
  });
  expect(res.status).toBe(200);
  const page: Json = await res.json();
  const row: Json = page.data.find((r: Json) => r.correlation_id === requestId);
  expect(row, `history row of ${requestId}`).toBeDefined();
  return row;
}

/** The audit event of that call: linked by the id the server issued, the row's request_id. */
async function auditEvent(correlationId: string): Promise<Json> {
  const { request_id: requestId } = await historyRow(correlationId);
  const res = await t.request('/v1/audit-events?channel=mcp&limit=100', { token: 'owner' });
  expect(res.status).toBe(200);
  const page: Json = await res.json();
  const event: Json = page.data.find((e: Json) => e.request_id === requestId);
  expect(event, `audit event of ${requestId}`).toBeDefined();
  return event;
}

describe('client attribution in the 2025 era', () => {
  it('names the v1 SDK client by its clientInfo, through the session id it was given', async () => {
    const sessionIds: (string | null)[] = [];
    const client = new ClientV1({ name: 'Attribution Probe', version: '4.2.0' });
    const transport = new TransportV1(new URL(`${t.url}/mcp`), {
      requestInit: {
        headers: { authorization: `Bearer ${t.tokens.owner}`, 'x-request-id': 'attr-v1-sdk' },
      },
      fetch: async (input, init) => {
        sessionIds.push(new Headers(init?.headers).get('mcp-session-id'));
        return fetch(input, init);
      },
    });
    await client.connect(transport);
    try {
      expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
      const result = await client.callTool({
        name: 'create_account',
        arguments: { name: 'Attributed Ltd' },
      });
      expect(result.isError ?? false).toBe(false);
      // initialize went without an id; everything after it carried the one it was given.
      expect(sessionIds[0]).toBeNull();
      expect(sessionIds.slice(1).every((id) => id === transport.sessionId)).toBe(true);
    } finally {
      await client.close();
    }

    expect(await historyRow('attr-v1-sdk')).toMatchObject({
      client_name: 'Attribution Probe',
      era: '2025',
    });
    expect(await auditEvent('attr-v1-sdk')).toMatchObject({ client_name: 'Attribution Probe' });
  });

  it('names a client that sends no session id by its User-Agent product', async () => {
    const res = await call2025(t, 'create_account', { name: 'UA Ltd' }, 'attr-user-agent', {
      'user-agent': 'probe-agent/7.1 (linux) node/20',
    });
    expect(res.status).toBe(200);
    expect(res.body.result.isError ?? false).toBe(false);
    expect(await historyRow('attr-user-agent')).toMatchObject({ client_name: 'probe-agent/7.1' });
    expect(await auditEvent('attr-user-agent')).toMatchObject({ client_name: 'probe-agent/7.1' });
  });

  it('answers 404 to a session id it did not issue; initialize again gives a working one', async () => {
    const forged = await call2025(t, 'create_account', { name: 'Never Ltd' }, 'attr-forged', {
      'mcp-session-id': 'eyJ2IjoxLCJuIjoiZXZpbCJ9.AAAA',
    });
    expect(forged.status).toBe(404);
    expect(forged.body).toMatchObject({ error: { code: 'SESSION_NOT_FOUND' } });
    const accounts: Json = await (
      await t.request('/v1/accounts?q=Never%20Ltd', { token: 'owner' })
    ).json();
    expect(accounts.data).toEqual([]);

    const init = await legacyInitialize(t.url, t.tokens.owner, 'Recovered', REVISION);
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id');
    expect(sessionId).not.toBeNull();
    const again = await call2025(t, 'create_account', { name: 'Recovered Ltd' }, 'attr-recovered', {
      'mcp-session-id': sessionId ?? '',
    });
    expect(again.status).toBe(200);
    expect(await historyRow('attr-recovered')).toMatchObject({ client_name: 'Recovered' });
  });

  it('DELETE with a session id is 405: there is no session to end', async () => {
    const res = await fetch(`${t.url}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': 'anything', 'mcp-protocol-version': '2025-11-25' },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

function running(server: BuiltServer | undefined): BuiltServer {
  if (server === undefined) throw new Error('the server did not start');
  return server;
}

async function initializeOn(server: BuiltServer): Promise<string> {
  const res = await legacyInitialize(server.url, server.tokens.owner, 'Replica Hopper', REVISION);
  expect(res.status).toBe(200);
  return res.headers.get('mcp-session-id') ?? '';
}

/**
 * Replicas are separate processes (the built server; `npm run build` first): two in one process
 * would share process-wide state no deployment has (passport's strategy registry).
 */
describe('client attribution across replicas', () => {
  const key = randomBytes(32).toString('hex');
  let a: BuiltServer | undefined;
  let b: BuiltServer | undefined;
  let other: BuiltServer | undefined;
  beforeAll(async () => {
    [a, b, other] = await startBuiltServers([
      { env: { SERVER_SECRET_KEYS: key } },
      // A rotation in progress on the second replica: a new key first, the shared one still listed.
      { env: { SERVER_SECRET_KEYS: `${randomBytes(32).toString('hex')},${key}` } },
      { env: { SERVER_SECRET_KEYS: randomBytes(32).toString('hex') } },
    ]);
  }, 360_000);
  afterAll(async () => {
    await Promise.all([a?.dispose(), b?.dispose(), other?.dispose()]);
  });

  it('a session id minted by one replica names the client on another that holds the key', async () => {
    const [first, second] = [running(a), running(b)];
    const sessionId = await initializeOn(first);
    const res = await call2025(second, 'create_account', { name: 'Hopped Ltd' }, 'attr-replica-b', {
      'mcp-session-id': sessionId,
    });
    expect(res.status).toBe(200);
    const history = await fetch(`${second.url}/v1/mcp/tool-calls?tool=create_account&limit=100`, {
      headers: { authorization: `Bearer ${second.tokens.owner}` },
    });
    const page: Json = await history.json();
    expect(page.data.find((r: Json) => r.correlation_id === 'attr-replica-b')).toMatchObject({
      client_name: 'Replica Hopper',
    });
  });

  it('a replica without the key answers 404, so the client initializes again there', async () => {
    const sessionId = await initializeOn(running(a));
    const elsewhere = running(other);
    const res = await call2025(elsewhere, 'list_accounts', {}, 'attr-other-keys', {
      'mcp-session-id': sessionId,
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: { code: 'SESSION_NOT_FOUND' } });
  });
});
