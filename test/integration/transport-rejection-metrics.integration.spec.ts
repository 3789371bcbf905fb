import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMetrics } from '../support/raw-mcp.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * `mcp_transport_rejections_total` tells the truth: a scripted session sends one request for
 * every way `/mcp` refuses before reading the message, and each reason moves by exactly the
 * number of requests refused for it — whichever layer refused (Origin/Host hook, bearer guard,
 * per-IP limiter before authentication, per-token limiter after it, body limit, controller).
 * GET/DELETE 405s count apart as `optional_method`, a reason the alert rules ignore
 * (deploy/prometheus/alerts.test.yml proves it against promtool).
 */

const TOKEN_BUDGET = 4;
const IP_BUDGET = 40;
const ACCEPT = 'application/json, text/event-stream';
const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

/** A raw request (fetch will not send an arbitrary Host header). */
function raw(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<number> {
  return new Promise((resolveStatus, reject) => {
    const request = http.request(`${url}/mcp`, { method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolveStatus(res.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end(body);
  });
}

describe('transport rejections, one scripted session through every reason', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({
      rateLimitPerTokenPerMinute: TOKEN_BUDGET,
      rateLimitPerIpPerMinute: IP_BUDGET,
    });
  }, 180_000);
  afterAll(async () => t.close());

  const rejections = async (): Promise<Record<string, number>> => {
    const samples = parseMetrics(await (await t.request('/metrics')).text());
    const counts: Record<string, number> = {};
    for (const [key, value] of samples) {
      const match = /^mcp_transport_rejections_total\{reason="([a-z_]+)"\}$/.exec(key);
      if (match !== null) counts[match[1]] = value;
    }
    return counts;
  };

  const post = (headers: Record<string, string>, body = PING): Promise<number> =>
    raw(t.url, 'POST', { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body);

  it(
    'each counter moves by exactly the requests refused for its reason',
    { timeout: 120_000 },
    async () => {
      const host = new URL(t.url).host;
      const before = await rejections();
      const owner = { authorization: `Bearer ${t.tokens.owner}` };
      const statuses: Record<string, number[]> = {};
      const send = async (reason: string, status: Promise<number>): Promise<void> => {
        (statuses[reason] ??= []).push(await status);
      };

      await send('unauthenticated', post({}));
      await send('invalid_token', post({ authorization: 'Bearer pat_not_a_real_token' }));
      await send('origin_not_allowed', post({ ...owner, origin: 'https://evil.example.com' }));
      await send('host_not_allowed', post({ ...owner, host: 'evil.example.com' }));
      await send('optional_method', raw(t.url, 'GET', { accept: 'text/event-stream', host }));
      await send('optional_method', raw(t.url, 'DELETE', { ...owner, host }));
      await send('not_acceptable', post({ ...owner, accept: 'text/html' }));
      await send('body_too_large', post(owner, JSON.stringify({ pad: 'x'.repeat(1_100_000) })));
      await send('unsupported_media_type', post({ ...owner, 'content-type': 'text/plain' }));
      await send(
        'unsupported_protocol_version',
        post({ ...owner, 'mcp-protocol-version': '1999-01-01' }),
      );
      await send(
        'session_not_found',
        post({ ...owner, 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': 'not-ours' }),
      );
      // Per token: the member token's budget, then one more.
      const member = { authorization: `Bearer ${t.tokens.member}` };
      for (let i = 0; i < TOKEN_BUDGET; i += 1) expect(await post(member)).toBe(200);
      await send('rate_limited', post(member));
      // Per IP (before authentication): spend what is left of the address's budget, then one more.
      let ipStatus = 0;
      let sent = 0;
      while (ipStatus !== 429 && sent < IP_BUDGET + 5) {
        ipStatus = await raw(t.url, 'GET', { host });
        sent += 1;
      }
      expect(ipStatus).toBe(429);

      expect(statuses).toEqual({
        unauthenticated: [401],
        invalid_token: [401],
        origin_not_allowed: [403],
        host_not_allowed: [403],
        optional_method: [405, 405],
        not_acceptable: [406],
        body_too_large: [413],
        unsupported_media_type: [415],
        unsupported_protocol_version: [400],
        session_not_found: [404],
        rate_limited: [429],
      });

      const after = await rejections();
      const moved = Object.fromEntries(
        Object.keys(after)
          .map((reason) => [reason, after[reason] - (before[reason] ?? 0)] as const)
          .filter(([, delta]) => delta !== 0),
      );
      expect(moved).toEqual({
        unauthenticated: 1,
        invalid_token: 1,
        origin_not_allowed: 1,
        host_not_allowed: 1,
        // The two above, and every GET sent to spend the per-IP budget but the refused last one.
        optional_method: 2 + (sent - 1),
        not_acceptable: 1,
        body_too_large: 1,
        unsupported_media_type: 1,
        unsupported_protocol_version: 1,
        session_not_found: 1,
        // One per token, one per IP.
        rate_limited: 2,
      });
    },
  );
});
