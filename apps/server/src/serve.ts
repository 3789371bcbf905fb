import { createServer } from 'node:net';
import { Logger } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import { InFlightResponses, ShutdownState, drainAndClose, shutdownPhases } from '@app/health';
import { startServer } from './bootstrap.js';

const logger = new Logger('Main');

/**
 * Starts the server and stops it on SIGTERM / SIGINT. `main.ts` imports this module only after
 * tracing (when configured) has started; `beforeExit` runs last, e.g. to export buffered spans.
 */
export async function serve(
  config: AppConfig,
  beforeExit: () => Promise<void> = async () => {},
): Promise<void> {
  let server;
  try {
    // Before anything starts (the embedded engine, Nest, its "started" log line): a port another
    // process holds is one clear line and exit code 1. startServer still handles losing the race.
    if (config.port !== 0) await assertPortFree(config.host, config.port);
    server = await startServer(config);
  } catch (err) {
    if (isAddressInUse(err)) {
      process.stderr.write(
        `Cannot listen on ${config.host}:${config.port}: the port is already in use (set PORT to another port, or stop the other process)\n`,
      );
      process.exit(1);
    }
    throw err;
  }
  const base = config.baseUrl;
  logger.log(`MCP endpoint: ${base}/mcp`);
  logger.log(`REST API:     ${base}/v1 (OpenAPI at ${base}/v1/openapi.json)`);
  logger.log(`Admin console: ${base}/admin/`);
  if (server.demoTokensFile) logger.log(`Demo tokens:  ${server.demoTokensFile}`);
  // A person at a terminal gets the useful lines at the end, whatever LOG_LEVEL says; log
  // shippers (stdout not a TTY) get JSON only.
  if (process.stdout.isTTY) {
    const lines = [
      '',
      `  MCP endpoint  ${base}/mcp`,
      `  REST API      ${base}/v1   (OpenAPI: ${base}/v1/openapi.json)`,
      `  Admin console ${base}/admin/`,
      ...(server.demoTokensFile ? [`  Demo tokens   ${server.demoTokensFile}`] : []),
      '',
    ];
    process.stderr.write(`${lines.join('\n')}\n`);
  }

  // From the start, so that a drain can tell responses already in flight to close their connection.
  const responses = new InFlightResponses(server.app.getHttpServer());
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    const phases = shutdownPhases(config.shutdownGraceMs);
    logger.log(
      `${signal} received: not ready; draining for ${phases.drainDelayMs} ms, then closing (grace ${config.shutdownGraceMs} ms)`,
    );
    // Last resort, should closing itself hang (e.g. the database not answering).
    const force = setTimeout(() => {
      logger.error('Shutdown still not finished 5 s after the grace period; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + 5_000);
    force.unref();
    drainAndClose(
      {
        state: server.app.get(ShutdownState),
        httpServer: server.app.getHttpServer(),
        responses,
        closeApp: () => server.close(),
      },
      phases,
      logger,
    )
      .then(async (outcome) => {
        logger.log(
          outcome === 'clean'
            ? 'Stopped: every request finished, call history flushed, database closed'
            : 'Stopped after cutting requests still in flight; call history flushed, database closed',
        );
        await beforeExit();
        process.exit(outcome === 'clean' ? 0 : 1);
      })
      .catch((err: unknown) => {
        logger.error(err);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Listens on the port for an instant; rejects with EADDRINUSE when another process holds it. */
function assertPortFree(host: string, port: number): Promise<void> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolvePort()));
  });
}

/** Whether listening failed because another process holds the port. */
function isAddressInUse(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === 'EADDRINUSE';
}
