import 'reflect-metadata';
import { ConfigError, loadConfig } from '@app/config';
import { readServerVersion } from '@app/common';
import { startTracing, type RunningTracing } from '@app/tracing';

/**
 * The process's entry: it imports only the configuration and the tracing bootstrap, neither of
 * which loads `pg`, `ioredis` or `http`. Tracing, when the configuration turns it on, starts before the server's
 * modules are imported: its instrumentations patch `pg`, `ioredis` and `http` as they load
 * (docs/adr/0009). Without it the SDK is never loaded.
 */
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
let tracing: RunningTracing | undefined;
if (config.tracing) {
  tracing = await startTracing({
    serviceName: config.otelServiceName,
    serviceVersion: readServerVersion(),
    captureToolContent: config.otelCaptureToolContent,
  });
}
const { serve } = await import('./serve.js');
await serve(config, async () => {
  await tracing?.shutdown();
});
