import { register } from 'node:module';
import { markTracingStarted, markTracingStopped } from './spans.js';
import type { RunningTracing, TracingSettings } from './tracing-settings.js';

/**
 * Starts the OpenTelemetry SDK, before the server's own modules are imported (`main.ts` imports
 * them only afterwards): the instrumentations patch `pg`, `ioredis` and `http` as they load, and
 * a module loaded earlier would stay unpatched (docs/adr/0009). The ESM hook wraps only the
 * modules an instrumentation asked for. Called only when the configuration enables tracing: the
 * SDK is a dynamic import, so a server without tracing never loads it.
 */
export async function startTracing(settings: TracingSettings): Promise<RunningTracing> {
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  const { recordRoute, startSdk } = await import('./tracing-sdk.js');
  const sdk = startSdk(settings);
  await waitForAllMessagesAcknowledged();
  markTracingStarted(recordRoute, { captureToolContent: settings.captureToolContent });
  return {
    shutdown: async () => {
      markTracingStopped();
      await sdk.shutdown();
    },
  };
}
