import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { firstUrl } from './browser-agent.js';
import { latestMailTo } from './mail-drop.js';
import type { TestServer } from './test-server.js';

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

/** One page of headless Chromium on a profile of its own, for a person's browser in a test. */
export interface ChromiumPage {
  context: BrowserContext;
  page: Page;
  /** The script errors the pages threw (a test of the server's pages expects none). */
  pageErrors: string[];
  /** Closes the browser, then removes the profile (even when closing failed). */
  close(): Promise<void>;
}

/**
 * Launches Chromium on a fresh profile (`profilePrefix` names its temporary folder) and opens its
 * page with `stepMs` as the default timeout of every page step (launching gets twice that).
 */
export async function openChromiumPage(
  profilePrefix: string,
  stepMs: number,
): Promise<ChromiumPage> {
  const profile = await mkdtemp(join(tmpdir(), profilePrefix));
  const removeProfile = () => rm(profile, { recursive: true, force: true });
  let context: BrowserContext;
  try {
    context = await launchChromium(profile, { timeoutMs: stepMs * 2 });
  } catch (err) {
    await removeProfile();
    throw err;
  }
  const pageErrors: string[] = [];
  const close = async () => {
    try {
      await context.close();
    } finally {
      await removeProfile();
    }
  };
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(stepMs);
    page.on('pageerror', (err) => pageErrors.push(err.message));
    return { context, page, pageErrors, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * On the sign-in page: asks for a one-time link as `email`, follows it from `t`'s mail drop and
 * presses Continue. Returns the notice the sign-in page showed after asking.
 */
export async function signInByMailLink(
  page: Page,
  t: TestServer,
  email: string,
  stepMs: number,
): Promise<string> {
  await page.getByLabel(/e-mail/i).fill(email);
  await Promise.all([
    page.waitForLoadState('load', { timeout: stepMs }),
    page.getByRole('button', { name: 'E-mail me a sign-in link' }).click({ timeout: stepMs }),
  ]);
  const status = page.getByRole('status');
  await status.waitFor({ timeout: stepMs });
  const notice = await status.innerText();
  await page.goto(firstUrl(await latestMailTo(t, email)), { timeout: stepMs });
  await page.getByRole('button', { name: 'Continue' }).click({ timeout: stepMs });
  return notice;
}
