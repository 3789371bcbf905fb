import type { IncomingMessage, Server, ServerResponse } from 'node:http';
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

export interface GracefulShutdownTarget {
  state: ShutdownState;
  /** The app's HTTP server. */
  httpServer: Server;
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
 * The listener is closed here, before the app, because the app's close also closes Fastify, after
 * which a tool call in flight could no longer dispatch to its REST endpoint (`inject`).
 * Resolves `'clean'` when every request finished, `'cut'` when some had to be cut.
 */
export async function drainAndClose(
  target: GracefulShutdownTarget,
  phases: { drainDelayMs: number; closeGraceMs: number },
  logger: GracefulShutdownLogger,
): Promise<'clean' | 'cut'> {
  const { httpServer } = target;
  target.state.startDraining();
  httpServer.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    res.shouldKeepAlive = false;
  });
  if (phases.drainDelayMs > 0) await delay(phases.drainDelayMs);

  logger.log(
    `Closing: no new connections; requests in flight have ${phases.closeGraceMs} ms to finish`,
  );
  let cut = false;
  const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
  const sweep = setInterval(() => httpServer.closeIdleConnections(), IDLE_SWEEP_MS);
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
