import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { Server } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { ShutdownState } from './shutdown.state.js';

/** The longest readiness answers 503 while the server still serves, before the listener closes. */
export const MAX_DRAIN_DELAY_MS = 2_000;
/** How often connections that went idle are closed while the listener waits for requests in flight. */
const IDLE_SWEEP_MS = 50;

/**
 * How a stop spends its grace period (`SHUTDOWN_GRACE_MS`): first readiness answers 503 while
 * everything else is still served, so a load balancer that polls `/health/ready` stops routing here
 * (`drainDelayMs`: 2 s, or half the grace when that is shorter); then the listener closes and the
 * requests in flight get the rest of the grace to finish.
 */
export function shutdownPhases(graceMs: number): { drainDelayMs: number; closeGraceMs: number } {
  const drainDelayMs = Math.min(MAX_DRAIN_DELAY_MS, Math.floor(graceMs / 2));
  return { drainDelayMs, closeGraceMs: graceMs - drainDelayMs };
}

/**
 * The responses in flight on a server, tracked from its start, so that a drain can tell every
 * response not yet begun to close its connection: not only those of requests that arrive after
 * draining began, but also a slow one that arrived before and answers during the drain (its
 * keep-alive connection would otherwise stay open, and the client's next request on it could meet
 * the idle sweep and be reset).
 */
export class InFlightResponses {
  private readonly responses = new Set<ServerResponse>();
  private closing = false;

  constructor(httpServer: HttpServer) {
    httpServer.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
      if (this.closing) {
        res.shouldKeepAlive = false;
        return;
      }
      this.responses.add(res);
      res.once('close', () => this.responses.delete(res));
    });
  }

  /** From now on every response not yet begun closes its connection after it (`Connection: close`). */
  closeConnections(): void {
    this.closing = true;
    for (const res of this.responses) if (!res.headersSent) res.shouldKeepAlive = false;
    this.responses.clear();
  }
}

export interface GracefulShutdownTarget {
  state: ShutdownState;
  /** The app's HTTP server. */
  httpServer: HttpServer;
  /** Its responses, tracked since it started (without: only requests from the drain on). */
  responses?: InFlightResponses;
  /** Closes the app once no request is left: shutdown hooks (history flush), then the database. */
  closeApp(): Promise<void>;
}

export interface GracefulShutdownLogger {
  log(message: string): void;
  warn(message: string): void;
}

/**
 * Stops the server gracefully:
 * 1. readiness answers 503, everything else is still served (`drainDelayMs`); from now on no
 *    connection is kept alive after its response;
 * 2. the listener closes and requests in flight finish — connections that go idle are closed as
 *    they do; those still open `closeGraceMs` later are cut;
 * 3. the app closes (history flush, database).
 *
 * The listener is closed here, before the app, because the app's close also closes the database
 * pool and the history writer, which requests still in flight (a tool call included) need.
 * Resolves `'clean'` when every request finished, `'cut'` when some had to be cut.
 */
export async function drainAndClose(
  target: GracefulShutdownTarget,
  phases: { drainDelayMs: number; closeGraceMs: number },
  logger: GracefulShutdownLogger,
): Promise<'clean' | 'cut'> {
  const { httpServer } = target;
  target.state.startDraining();
  (target.responses ?? new InFlightResponses(httpServer)).closeConnections();
  if (phases.drainDelayMs > 0) await delay(phases.drainDelayMs);

  logger.log(
    `Closing: no new connections; requests in flight have ${phases.closeGraceMs} ms to finish`,
  );
  let cut = false;
  // The listener closes in the check phase, right after a poll phase in which libuv accepted every
  // connection waiting in the kernel's queue (it accepts until the queue is empty): a connection
  // left there would be reset by the close. And it closes as a net.Server, without http.Server's
  // close(), which also closes every "idle" connection at once, including those accepted a moment
  // ago whose request is not read yet: reset, though the request reached the server.
  const closed = new Promise<void>((resolve) =>
    setImmediate(() => Server.prototype.close.call(httpServer, () => resolve())),
  );
  // Idle connections are closed between requests only: every response since draining began said
  // `Connection: close` (and its connection closes after it), so what is idle is a keep-alive
  // connection quiet since before the drain, or one just accepted. The sweep runs in the check
  // phase too, after the poll phase read what had arrived: a connection whose request reached the
  // server is busy with it by then, not idle.
  const sweep = setInterval(
    () => setImmediate(() => httpServer.closeIdleConnections()),
    IDLE_SWEEP_MS,
  );
  const timer = setTimeout(() => {
    cut = true;
    logger.warn('Grace period over: cutting the connections of requests still in flight');
    httpServer.closeAllConnections();
  }, phases.closeGraceMs);
  try {
    await closed;
  } finally {
    clearInterval(sweep);
    clearTimeout(timer);
  }
  await target.closeApp();
  return cut ? 'cut' : 'clean';
}
