import http from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { drainAndClose, shutdownPhases } from './graceful-shutdown.js';
import { ShutdownState } from './shutdown.state.js';

const quiet = { log: () => undefined, warn: () => undefined };

describe('shutdownPhases', () => {
  it('drains for 2 s, or half the grace when that is shorter; the rest is for requests in flight', () => {
    expect(shutdownPhases(10_000)).toEqual({ drainDelayMs: 2_000, closeGraceMs: 8_000 });
    expect(shutdownPhases(1_000)).toEqual({ drainDelayMs: 500, closeGraceMs: 500 });
    expect(shutdownPhases(0)).toEqual({ drainDelayMs: 0, closeGraceMs: 0 });
  });
});

/** GET → `status body`, or `error <message>`. */
function get(url: string, agent: http.Agent): Promise<string> {
  return new Promise((resolve) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(`${res.statusCode} ${body}`));
      })
      .on('error', (err) => resolve(`error ${err.message}`));
  });
}

describe('drainAndClose', () => {
  let server: http.Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
  });

  /** A server whose requests answer after `?ms=` milliseconds (never, for `ms=never`). */
  async function slowServer(events: string[] = []): Promise<{ url: string; agent: http.Agent }> {
    server = http.createServer((req, res) => {
      res.on('finish', () => events.push('response sent'));
      const ms = new URL(req.url ?? '/', 'http://x').searchParams.get('ms');
      if (ms !== 'never') setTimeout(() => res.end('done'), Number(ms ?? 0));
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    return { url: `http://127.0.0.1:${port}`, agent: new http.Agent({ keepAlive: true }) };
  }

  it('is not ready at once, lets keep-alive requests in flight finish, then closes the app', async () => {
    const events: string[] = [];
    const { url, agent } = await slowServer(events);
    const state = new ShutdownState();
    const inFlight = get(`${url}/?ms=300`, agent);
    await delay(50);
    const outcome = drainAndClose(
      {
        state,
        httpServer: server!,
        closeApp: async () => {
          events.push(`app closed (listening: ${server!.listening})`);
        },
      },
      { drainDelayMs: 100, closeGraceMs: 5_000 },
      quiet,
    );
    expect(state.draining).toBe(true);
    const started = Date.now();
    expect(await outcome).toBe('clean');
    // The keep-alive connection was closed once idle, long before its 60 s keep-alive timeout.
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await inFlight).toBe('200 done');
    expect(events).toEqual(['response sent', 'app closed (listening: false)']);
  });

  it('cuts the connections still open when the grace is over, and still closes the app', async () => {
    const { url, agent } = await slowServer();
    const stuck = get(`${url}/?ms=never`, agent);
    await delay(50);
    let appClosed = false;
    const started = Date.now();
    const outcome = await drainAndClose(
      {
        state: new ShutdownState(),
        httpServer: server!,
        closeApp: async () => {
          appClosed = true;
        },
      },
      { drainDelayMs: 0, closeGraceMs: 200 },
      quiet,
    );
    expect(outcome).toBe('cut');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(appClosed).toBe(true);
    expect(await stuck).toMatch(/^error /);
  });
});
