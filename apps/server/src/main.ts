import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigError, loadConfig } from '@app/config';
import { ShutdownState } from '@app/health';
import { startServer } from './bootstrap.js';

const logger = new Logger('Main');

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }

  const server = await startServer(config);
  const base = config.publicBaseUrl ?? server.url;
  logger.log(`MCP endpoint: ${base}/mcp`);
  logger.log(`REST API:     ${base}/v1 (OpenAPI at ${base}/v1/openapi.json)`);
  if (server.demoTokensFile) logger.log(`Demo tokens:  ${server.demoTokensFile}`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received: draining (grace ${config.shutdownGraceMs} ms)`);
    server.app.get(ShutdownState).startDraining();
    const force = setTimeout(() => {
      logger.error('Grace period over; exiting with requests still in flight');
      process.exit(1);
    }, config.shutdownGraceMs + 5_000);
    force.unref();
    server
      .close()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        logger.error(err);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

await main();
