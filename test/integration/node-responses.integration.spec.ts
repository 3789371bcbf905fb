import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * What Node's HTTP server and the web frameworks would answer on their own (a request too slow to
 * arrive, an expectation other than 100-continue, a body cut off mid-stream, a path under the
 * OAuth mount that has no route) answers with the envelope, and nothing is printed as plain text.
 */

const RECEIVE_TIMEOUT_MS = 1_000;

interface Exchange {
  /** Everything the server wrote before it closed the connection. */
  text: string;
  /** When the connection closed, in ms since it opened. */
  closedAfterMs: number;
}

/**
 * Opens a connection, writes `parts` one after another with `gapMs` between them (stopping once
 * the server has closed), half-closes when `end` is set, and collects what comes back.
 */
function exchange(
  url: string,
  parts: readonly string[],
  options: { gapMs?: number; end?: boolean } = {},
): Promise<Exchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let text = '';
    let closed = false;
    const socket = connect(Number(port), hostname, () => {
      void (async () => {
        for (const part of parts) {
          if (closed) return;
          socket.write(part);
          if (options.gapMs !== undefined) await new Promise((r) => setTimeout(r, options.gapMs));
        }
        if (options.end === true && !closed) socket.end();
      })();
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    socket.setTimeout(60_000, () => reject(new Error('the server never closed the connection')));
  });
}

function response(text: string): { status: number; contentType?: string; body: unknown } {
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const contentType = /^content-type: *([^\r]+)/im.exec(head)?.[1];
  return { status, contentType, body: body === '' ? undefined : JSON.parse(body) };
}

describe('responses Node and the frameworks make on their own', () => {
  let t: TestServer;
  let host: string;

  beforeAll(async () => {
    t = await startTestServer({ requestReceiveTimeoutMs: RECEIVE_TIMEOUT_MS });
    host = `Host: ${new URL(t.url).host}\r\n`;
  }, 120_000);
  afterAll(async () => t?.close());

  it('a body dribbled a byte at a time is cut off with 408 in the envelope (REQUEST_RECEIVE_TIMEOUT_MS)', async () => {
    const head =
      `POST /v1/accounts HTTP/1.1\r\n${host}authorization: Bearer ${t.tokens.owner}\r\n` +
      'content-type: application/json\r\ncontent-length: 40\r\n\r\n';
    // 40 bytes at 500 ms each would take 20 s to arrive.
    const dribbled = await exchange(
      t.url,
      [head, ...'{"name":"Slow","tax_id":"x","aa":"bbbb"}'.split('')],
      {
        gapMs: 500,
      },
    );
    expect(response(dribbled.text)).toEqual({
      status: 408,
      contentType: 'application/json',
      body: { error: { code: 'REQUEST_TIMEOUT', message: expect.any(String) } },
    });
    expect(dribbled.closedAfterMs).toBeLessThan(15_000);
  }, 60_000);

  it('headers dribbled a line at a time are cut off the same way', async () => {
    const lines = [
      'GET /v1/me HTTP/1.1\r\n',
      host,
      ...Array.from({ length: 40 }, (_, i) => `x-${i}: y\r\n`),
    ];
    const dribbled = await exchange(t.url, lines, { gapMs: 500 });
    expect(response(dribbled.text)).toMatchObject({
      status: 408,
      body: { error: { code: 'REQUEST_TIMEOUT' } },
    });
    expect(dribbled.closedAfterMs).toBeLessThan(15_000);
  }, 60_000);

  it('an expectation other than 100-continue gets 417 in the envelope, the body unread', async () => {
    const res = await exchange(t.url, [
      `POST /v1/accounts HTTP/1.1\r\n${host}expect: 101-foo\r\ncontent-type: application/json\r\n` +
        'content-length: 2\r\nconnection: close\r\n\r\n{}',
    ]);
    expect(response(res.text)).toEqual({
      status: 417,
      contentType: 'application/json',
      body: { error: { code: 'EXPECTATION_FAILED', message: expect.any(String) } },
    });
  });

  it('a body cut off mid-stream prints nothing as plain text, on any route', async () => {
    const printed = vi.spyOn(console, 'error');
    const warned = vi.spyOn(console, 'warn');
    const answers: { path: string; body: unknown }[] = [];
    try {
      for (const [path, type, partial] of [
        ['/oauth/token', 'application/x-www-form-urlencoded', 'grant_type=authorization_co'],
        ['/oauth/register', 'application/json', '{"redirect_uris":['],
        ['/v1/accounts', 'application/json', '{"name":'],
        ['/mcp', 'application/json', '{"jsonrpc":'],
        ['/signin', 'application/x-www-form-urlencoded', 'email=a'],
      ]) {
        const res = await exchange(
          t.url,
          [
            `POST ${path} HTTP/1.1\r\n${host}authorization: Bearer ${t.tokens.owner}\r\n` +
              `accept: application/json, text/event-stream\r\ncontent-type: ${type}\r\n` +
              `content-length: 500\r\n\r\n${partial}`,
          ],
          { end: true },
        );
        // Whatever came back (the parser's 400, or nothing: no one is left to answer) is the envelope.
        answers.push({ path, body: res.text === '' ? { error: {} } : response(res.text).body });
      }
      for (const { path, body } of answers) expect(body, path).toMatchObject({ error: {} });
      // The server has had time to notice every one of them.
      await new Promise((r) => setTimeout(r, 500));
      expect(printed).not.toHaveBeenCalled();
      expect(warned).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
      warned.mockRestore();
    }
  });

  it('a path under the OAuth mount with no route is our 404 envelope', async () => {
    for (const [method, path] of [
      ['GET', '/oauth//jwks'],
      ['GET', '/oauth/nothing-here'],
      ['OPTIONS', '/oauth/token'],
    ]) {
      const res = await exchange(t.url, [
        `${method} ${path} HTTP/1.1\r\n${host}connection: close\r\n\r\n`,
      ]);
      expect(response(res.text), `${method} ${path}`).toMatchObject({
        status: 404,
        contentType: expect.stringMatching(/^application\/json/),
        body: { error: { code: 'NOT_FOUND' } },
      });
    }
  });
});
