import { existsSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs it), or another binary named by CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why browser tests cannot run here (for `skipWhen`), or `false` when they can. */
export const CHROMIUM_MISSING: string | false =
  !existsSync(CHROMIUM) &&
  `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;

/**
 * Headless Chromium on a fresh profile (`profileDir`, the caller removes it). Without the
 * background-networking flags it keeps trying to reach Google on this closed network.
 */
export function launchChromium(
  profileDir: string,
  options: { timeoutMs?: number; viewport?: { width: number; height: number } } = {},
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: options.timeoutMs,
    viewport: options.viewport,
    timezoneId: 'UTC',
    locale: 'en-GB',
  });
}
